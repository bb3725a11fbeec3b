import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { serveWebUi } from './web-ui.ts';

describe('the web UI page when web/dist is not built', () => {
  // `svc start` and `svc server` serve web/dist as it is; only `npm start` (and `npm run build:web`) build it.
  const empty = mkdtempSync(join(tmpdir(), 'svc-web-dist-'));
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it('answers pages with 503 and says how to build it; API paths stay JSON 404s', async () => {
    const app = Fastify();
    const page = await serveWebUi(app, join(empty, 'dist'));
    app.setNotFoundHandler((request, reply) => {
      if (page(request, reply)) return reply;
      return reply.code(404).send({ error: 'no route' });
    });
    const res = await app.inject({ method: 'GET', url: '/apps', headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('run <code>npm run build:web</code> (<code>npm start</code> does it by itself)');
    const api = await app.inject({ method: 'GET', url: '/api/v1/nothing', headers: { accept: 'text/html' } });
    expect(api.statusCode).toBe(404);
    await app.close();
  });
});
