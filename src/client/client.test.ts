import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSvcClient, type Failure } from './client.ts';

/** A failure as an Error, so the test sees what the client threw. */
class Failed extends Error {
  readonly failure: Failure;
  constructor(failure: Failure) {
    super(failure.message ?? `${failure.status}`);
    this.failure = failure;
  }
}

/** An HTTP server answering by path: what svc answers, and what a server that is not svc might. */
let server: Server;
let baseUrl: string;
const seen: Array<{ method: string; url: string; headers: Record<string, unknown>; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(value));
      };
      if (req.url?.startsWith('/api/v1/apps/team%2Fa/web%20app/status')) json(200, { name: 'web app' });
      else if (req.url === '/api/v1/apps/adopt') json(201, { name: 'adopted', echoed: JSON.parse(body) });
      else if (req.url === '/api/v1/auth/me') json(401, { error: 'invalid API key' });
      else if (req.url === '/api/v1/apps/x/y/logs') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('line 1\nline 2\n');
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>not svc</html>');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = () =>
  createSvcClient({
    baseUrl,
    headers: { authorization: 'Bearer svc_test' },
    failure: (failure) => new Failed(failure),
    unreachable: (error) => new Error(`unreachable: ${(error as Error).message}`),
  });

describe('the generated API client', () => {
  it('fills path parameters (encoded) and the query, sends the headers, and answers the 2xx body', async () => {
    const view = await client().GET('/api/v1/apps/{namespace}/{name}/status', {
      params: { path: { namespace: 'team/a', name: 'web app' }, query: { wait: '5s' } },
    });
    expect(view).toEqual({ name: 'web app' });
    const request = seen.at(-1);
    expect(request?.url).toBe('/api/v1/apps/team%2Fa/web%20app/status?wait=5s');
    expect(request?.headers).toMatchObject({ authorization: 'Bearer svc_test', accept: 'application/json' });
  });

  it('sends a JSON body', async () => {
    const created = await client().POST('/api/v1/apps/adopt', {
      body: { kind: 'Deployment', name: 'web', namespace: 'team-a' },
    });
    expect(created).toMatchObject({ echoed: { kind: 'Deployment', name: 'web', namespace: 'team-a' } });
    expect(seen.at(-1)?.headers['content-type']).toBe('application/json');
  });

  it('turns an {"error"} answer into the caller\'s error, with the server\'s message and the status', async () => {
    const error = await client()
      .GET('/api/v1/auth/me')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Failed);
    expect((error as Failed).failure).toMatchObject({ status: 401, message: 'invalid API key' });
  });

  it('treats a 2xx that is not JSON as a failure without a message (not an svc server)', async () => {
    const error = await client()
      .GET('/api/v1/auth/sessions')
      .catch((e: unknown) => e);
    expect((error as Failed).failure).toMatchObject({ status: 200, message: undefined, body: '<html>not svc</html>' });
  });

  it('streams a text answer when asked to', async () => {
    const stream = await client().GET('/api/v1/apps/{namespace}/{name}/logs', {
      params: { path: { namespace: 'x', name: 'y' } },
      parseAs: 'stream',
    });
    expect(await new Response(stream).text()).toBe('line 1\nline 2\n');
  });

  it("reports a server it cannot reach with the caller's error, and an abort as the abort", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const offline = createSvcClient({
      baseUrl: `http://127.0.0.1:${port}`,
      failure: (failure) => new Failed(failure),
      unreachable: (error) => new Error(`unreachable: ${((error as Error).cause as { code?: string }).code}`),
    });
    await expect(offline.GET('/api/v1/auth/me')).rejects.toThrow('unreachable: ECONNREFUSED');
    await expect(
      client().GET('/api/v1/auth/me', { signal: AbortSignal.abort(new Error('stopped by the caller')) }),
    ).rejects.toThrow('stopped by the caller');
  });
});
