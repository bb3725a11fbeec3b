import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatSink, startChatSink } from '../harness/index.ts';

describe('harness: chat-webhook sink', () => {
  let sink: ChatSink;

  beforeAll(async () => {
    sink = await startChatSink();
  });
  afterAll(async () => {
    await sink?.stop();
  });

  it('records requests and lets a test wait for one', async () => {
    const waiting = sink.waitFor((r) => (r.json as { text?: string } | undefined)?.text === 'synced');
    const res = await fetch(sink.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'synced' }),
    });
    expect(res.status).toBe(200);
    const got = await waiting;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hook');
    expect(got.headers['content-type']).toBe('application/json');
    expect(sink.requests).toHaveLength(1);
  });

  it('answers with a chosen failure status', async () => {
    sink.respondWith(500);
    const res = await fetch(sink.url, { method: 'POST', body: 'x' });
    expect(res.status).toBe(500);
    expect(sink.requests.at(-1)?.body).toBe('x');
  });
});
