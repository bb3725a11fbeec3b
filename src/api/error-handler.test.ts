import Fastify from 'fastify';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ConflictError, UnavailableError } from '../core/errors.ts';
import { handleError } from './error-handler.ts';

const lines: Record<string, unknown>[] = [];
const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l)) });
const app = Fastify({ loggerInstance: logger });
app.setErrorHandler(handleError);
app.get('/unavailable', async () => {
  const root = new Error('connect ECONNREFUSED 127.0.0.1:6443');
  throw new UnavailableError('the management cluster is unreachable', {
    cause: new Error('list apps', { cause: root }),
  });
});
app.get('/conflict', async () => {
  throw new ConflictError('an operation is pending', { cause: new Error('resourceVersion 7 is stale') });
});
app.get('/unexpected', async () => {
  throw new TypeError('cannot read properties of undefined');
});
afterAll(() => app.close());

const failures = () => lines.filter((l) => l['msg'] === 'request failed');

describe('handleError', () => {
  it('logs a 5xx SvcError with its whole cause chain and answers only its message', async () => {
    const res = await app.inject({ method: 'GET', url: '/unavailable' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: 'the management cluster is unreachable' });
    expect(failures().at(-1)).toMatchObject({
      code: 'unavailable',
      err: 'the management cluster is unreachable: list apps: connect ECONNREFUSED 127.0.0.1:6443',
    });
  });

  it('answers a 4xx without logging it as a failure', async () => {
    const before = failures().length;
    const res = await app.inject({ method: 'GET', url: '/conflict' });
    expect(res.statusCode).toBe(409);
    expect(failures().length).toBe(before);
  });

  it('hides an unexpected error from the caller and logs it', async () => {
    const res = await app.inject({ method: 'GET', url: '/unexpected' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'internal server error' });
    expect(JSON.stringify(failures().at(-1))).toContain('cannot read properties of undefined');
  });
});
