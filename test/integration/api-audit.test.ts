/**
 * GET /api/v1/audit over HTTP: entries of state-changing calls, newest first, paged by limit (default 50, max 200)
 * and offset, each naming the acting user (id, name, email), scoped to the caller's org, readable by
 * Owner/Admin/Contributor and not Viewer, and immutable (no route edits or deletes them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, mintKey, signUp, signUpMember, startTestApi, type TestApi, type TestUser } from './api-support.ts';

type Json = Record<string, unknown>;

describe('audit API', () => {
  let api: TestApi;
  let owner: TestUser;
  let contributor: TestUser;
  let viewer: TestUser;
  let other: TestUser;
  const keyIds: string[] = [];

  beforeAll(async () => {
    api = await startTestApi();
    owner = await signUp(api, 'owner');
    const orgId = await createOrg(api, owner, 'audited');
    contributor = await signUpMember(api, owner, orgId, 'contrib', 'member');
    viewer = await signUpMember(api, owner, orgId, 'viewer', 'viewer');
    other = await signUp(api, 'other');
    await createOrg(api, other, 'elsewhere');
    // 230 state-changing calls: key mints, each audited as apikey.create.
    for (let i = 0; i < 230; i++) {
      keyIds.push((await mintKey(api, { cookie: owner.cookie }, { name: `k${i}`, role: 'read' })).id);
    }
    await mintKey(api, { cookie: other.cookie }, { name: 'theirs', role: 'read' });
  });
  afterAll(async () => api?.close());

  it('pages newest first with limit default 50, capped at 200, and offset', async () => {
    const first = await api.call<{ entries: Json[]; limit: number; offset: number }>('GET', '/api/v1/audit', {
      cookie: owner.cookie,
    });
    expect(first.status).toBe(200);
    expect(first.body.limit).toBe(50);
    expect(first.body.offset).toBe(0);
    expect(first.body.entries).toHaveLength(50);
    expect(first.body.entries[0]).toEqual({
      id: expect.any(Number),
      created_at: expect.any(String),
      user_id: owner.id,
      user_name: 'owner',
      user_email: owner.email,
      action: 'apikey.create',
      resource_type: 'apikey',
      resource_id: keyIds[229],
      resource_name: 'k229',
      details: expect.objectContaining({ role: 'read', scope: 'org' }),
    });
    const ids = first.body.entries.map((e) => Number(e['id']));
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);

    const page = await api.call<{ entries: Json[] }>('GET', '/api/v1/audit?limit=10&offset=5', {
      cookie: owner.cookie,
    });
    expect(page.body.entries.map((e) => e['resource_name'])).toEqual(
      Array.from({ length: 10 }, (_, i) => `k${224 - i}`),
    );
    const max = await api.call<{ entries: Json[]; limit: number }>('GET', '/api/v1/audit?limit=500', {
      cookie: owner.cookie,
    });
    expect(max.body.limit).toBe(200);
    expect(max.body.entries).toHaveLength(200);
    const tail = await api.call<{ entries: Json[] }>('GET', '/api/v1/audit?limit=200&offset=200', {
      cookie: owner.cookie,
    });
    // The oldest entry is the org's default team, created with the org (team.create).
    expect(tail.body.entries.map((e) => e['resource_name'])).toEqual([
      ...Array.from({ length: 30 }, (_, i) => `k${29 - i}`),
      'audited',
    ]);
    expect(tail.body.entries.at(-1)).toMatchObject({ action: 'team.create', user_id: owner.id });
  });

  it('shows each org only its own entries', async () => {
    const theirs = await api.call<{ entries: Json[] }>('GET', '/api/v1/audit?limit=200', { cookie: other.cookie });
    expect(theirs.body.entries.map((e) => [e['action'], e['resource_name']])).toEqual([
      ['apikey.create', 'theirs'],
      ['team.create', 'elsewhere'],
    ]);
    // Each entry names its own actor beside the id.
    expect(theirs.body.entries.map((e) => [e['user_id'], e['user_name'], e['user_email']])).toEqual([
      [other.id, 'other', other.email],
      [other.id, 'other', other.email],
    ]);
    const ours = await api.call<{ entries: Json[] }>('GET', '/api/v1/audit?limit=200', { cookie: owner.cookie });
    expect(ours.body.entries.some((e) => e['resource_name'] === 'theirs')).toBe(false);
  });

  it('is readable by Contributors and read keys, not by Viewers or narrower-scoped keys', async () => {
    expect((await api.call('GET', '/api/v1/audit', { cookie: contributor.cookie })).status).toBe(200);
    expect((await api.call('GET', '/api/v1/audit', { cookie: viewer.cookie })).status).toBe(403);
    const read = await mintKey(api, { cookie: owner.cookie }, { role: 'read' });
    expect((await api.call('GET', '/api/v1/audit', { key: read.key })).status).toBe(200);
    const scoped = await mintKey(api, { cookie: owner.cookie }, { role: 'admin', scope: 'cluster', scope_id: 'east' });
    expect((await api.call('GET', '/api/v1/audit', { key: scoped.key })).status).toBe(403);
    expect((await api.call('GET', '/api/v1/audit')).status).toBe(401);
  });

  it('refuses bad queries (400) and offers no way to change entries', async () => {
    for (const q of ['limit=0', 'limit=abc', 'offset=-1', 'limit=1.5', 'action=app.sync']) {
      const res = await api.call('GET', `/api/v1/audit?${q}`, { cookie: owner.cookie });
      expect(res.status, q).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await api.call(method, '/api/v1/audit', { cookie: owner.cookie, body: {} });
      expect(res.status, method).toBe(405);
      expect(res.headers['allow']).toBe('GET, HEAD');
    }
  });
});
