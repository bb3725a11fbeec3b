/**
 * Fault matrix (issue 17): PostgreSQL restarted under two API replicas with requests in flight. A PostgreSQL server of
 * this test's own (the shared one is not disturbed), two `svc server` replicas on it. Requests keep flowing through
 * both replicas while the server stops and starts again: every answer is a 2xx or a 503 with a clear `{"error"}` (never
 * a 500), a request made while the server is down answers 503, and afterwards both replicas answer again on their
 * same connection pools — no restart of svc — and every API key minted before the fault, or whose mint answered 201
 * during it, is listed by both.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeWith,
  type PostgresInstance,
  postgresBinariesRequirement,
  startPostgresInstance,
  waitUntil,
} from '../harness/index.ts';
import { createOrg, mintKey, type Reply, signUp, startTestApi, type TestApi, type TestUser } from './api-support.ts';

type Json = Record<string, unknown>;

describeWith(postgresBinariesRequirement())('fault: PostgreSQL restarted under two API replicas', () => {
  let pg: PostgresInstance;
  let replicas: [TestApi, TestApi];
  let owner: TestUser;

  beforeAll(async () => {
    pg = await startPostgresInstance('fault-pg');
    const shared = { databaseURL: pg.url, authSecret: randomBytes(32).toString('hex') };
    replicas = [await startTestApi(shared), await startTestApi(shared)];
    owner = await signUp(replicas[0], 'owner');
    await createOrg(replicas[1], owner, `faultpg-${randomBytes(3).toString('hex')}`);
  });
  afterAll(async () => {
    await pg?.start().catch(() => undefined);
    await Promise.all((replicas ?? []).map((r) => r.close()));
    await pg?.destroy();
  });

  const listKeyIds = async (api: TestApi) => {
    const res = await api.call<{ api_keys: Json[] }>('GET', '/api/v1/auth/api-keys', { cookie: owner.cookie });
    return res.status === 200 ? res.body.api_keys.map((k) => String(k['id'])) : undefined;
  };
  /** A 2xx, or a 503 whose body is a one-line `{"error"}`; anything else fails the test with the reply. */
  const expectOkOr503 = (what: string, res: Reply<Json>) => {
    if (res.status < 300) return;
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(503);
    expect(res.body['error'], what).toEqual(expect.any(String));
    expect(String(res.body['error'])).not.toMatch(/\n\s+at /);
  };

  it('answers 503 {"error"} while it is down, never 500; both replicas recover; nothing lost', async () => {
    const before = await Promise.all(
      [0, 1, 2, 3].map((i) => mintKey(replicas[i % 2] as TestApi, { cookie: owner.cookie }, { role: 'read' })),
    );
    const mintedDuring: string[] = [];
    const replies: Array<{ what: string; res: Reply<Json> }> = [];
    let flowing = true;
    /** One client per replica: reads and writes back to back until told to stop. */
    const traffic = replicas.map(async (api, n) => {
      for (let i = 0; flowing; i++) {
        const [me, list, mint] = await Promise.all([
          api.call<Json>('GET', '/api/v1/auth/me', { key: (before[n] as { key: string }).key }),
          api.call<Json>('GET', '/api/v1/auth/api-keys', { cookie: owner.cookie }),
          api.call<Json>('POST', '/api/v1/auth/api-keys', {
            cookie: owner.cookie,
            body: { name: `during-${n}-${i}`, role: 'read' },
          }),
        ]);
        replies.push(
          { what: `replica ${n} GET /auth/me`, res: me },
          { what: `replica ${n} GET /auth/api-keys`, res: list },
          { what: `replica ${n} POST /auth/api-keys`, res: mint },
        );
        if (mint.status === 201) mintedDuring.push(String(mint.body['id']));
      }
    });
    try {
      // Requests are in flight on both replicas when the server goes.
      await waitUntil(() => replies.length >= 12 || undefined, { what: 'traffic on both replicas', intervalMs: 20 });
      await pg.stop();
      // While it is down: each replica answers a read and a write 503 with a clear message.
      for (const [n, api] of replicas.entries()) {
        const reads = await api.call<Json>('GET', '/api/v1/auth/api-keys', { cookie: owner.cookie });
        const writes = await api.call<Json>('POST', '/api/v1/auth/api-keys', {
          cookie: owner.cookie,
          body: { name: 'while-down', role: 'read' },
        });
        for (const [what, res] of [
          ['GET', reads],
          ['POST', writes],
        ] as const) {
          expect(res.status, `replica ${n} ${what} while down: ${JSON.stringify(res.body)}`).toBe(503);
          expect(res.body['error']).toEqual(expect.stringMatching(/database/i));
        }
      }
      await pg.start();
      // Both replicas answer again on their own (their pools reconnect), with traffic still flowing.
      for (const api of replicas) {
        await waitUntil(() => listKeyIds(api), { what: 'a replica answering after the restart', intervalMs: 100 });
      }
      const settled = replies.length;
      await waitUntil(() => replies.length >= settled + 12 || undefined, { what: 'traffic after the restart' });
    } finally {
      flowing = false;
      await Promise.all(traffic);
    }
    for (const { what, res } of replies) expectOkOr503(what, res);
    expect(replies.some((r) => r.res.status === 503)).toBe(true);
    // Nothing lost: every key minted before, and every mint that answered 201, is listed by both replicas.
    for (const api of replicas) {
      const ids = await listKeyIds(api);
      expect(ids).toEqual(expect.arrayContaining([...before.map((k) => k.id), ...mintedDuring]));
      expect((await api.call('GET', '/api/v1/auth/me', { key: (before[0] as { key: string }).key })).status).toBe(200);
    }
  });
});
