/**
 * Several `svc server` replicas on one PostgreSQL database: they start (and migrate) at the same moment without
 * stepping on each other, and are stateless — a session or API key from one works on the others, and a revocation
 * through one cuts access through all of them on the next request.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresDatabase, describeWith, type PostgresDatabase, postgresRequirement } from '../harness/index.ts';
import { createOrg, mintKey, signUp, startTestApi, type TestApi } from './api-support.ts';

describeWith(postgresRequirement())('server replicas on PostgreSQL', () => {
  let db: PostgresDatabase;
  let replicas: TestApi[] = [];

  beforeAll(async () => {
    db = await createPostgresDatabase();
    const authSecret = randomBytes(32).toString('hex');
    replicas = await Promise.all(
      [1, 2, 3].map(() => startTestApi({ database: 'postgres', databaseURL: db.url, authSecret })),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await db?.drop();
  });

  it('share sessions, keys and revocations', async () => {
    const [a, b, c] = replicas as [TestApi, TestApi, TestApi];
    const user = await signUp(a, 'ada');
    await createOrg(b, user, 'replicated');
    const me = await c.call<{ user: Record<string, unknown> }>('GET', '/api/v1/auth/me', { cookie: user.cookie });
    expect(me.body.user).toMatchObject({ id: user.id, role: 'Owner' });
    const { key, id } = await mintKey(a, { cookie: user.cookie }, { role: 'read' });
    expect((await b.call('GET', '/api/v1/auth/me', { key })).status).toBe(200);
    expect((await c.call('DELETE', `/api/v1/auth/api-keys/${id}`, { cookie: user.cookie })).status).toBe(200);
    expect((await a.call('GET', '/api/v1/auth/me', { key })).status).toBe(401);
    expect((await b.call('POST', '/api/auth/sign-out', { cookie: user.cookie, body: {} })).status).toBe(200);
    expect((await a.call('GET', '/api/v1/auth/me', { cookie: user.cookie })).status).toBe(401);
    const audit = await a.call<{ entries: unknown[] }>('GET', '/api/v1/audit', {
      cookie: (await signUp(a, 'x')).cookie,
    });
    expect(audit.status).toBe(403);
  });
});
