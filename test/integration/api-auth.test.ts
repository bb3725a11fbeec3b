/**
 * /api/v1/auth over HTTP, signed in through the auth component's /api/auth/* endpoints: authentication (cookie,
 * API key), sessions, can-i, API keys with their ceilings, role bindings, revocation, and bad input. Runs on SQLite
 * and on PostgreSQL (test/harness/requirements.ts: a missing PostgreSQL fails in CI).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSessionToken } from '../../src/auth/session-cookie.ts';
import { openStore } from '../../src/store/database.ts';
import { refuseAuditInserts } from '../harness/audit-fault.ts';
import { describeWith, postgresRequirement } from '../harness/index.ts';
import {
  addMember,
  auditEntries,
  createOrg,
  mintKey,
  signIn,
  signUp,
  signUpMember,
  startTestApi,
  type TestApi,
  type TestUser,
} from './api-support.ts';

type Json = Record<string, unknown>;

for (const database of ['sqlite', 'postgres'] as const) {
  (database === 'postgres' ? describeWith(postgresRequirement()) : describe)(`auth API on ${database}`, () => {
    let api: TestApi;
    let owner: TestUser;
    let viewer: TestUser;
    let outsider: TestUser;
    let orgId: string;

    beforeAll(async () => {
      api = await startTestApi({ database });
      owner = await signUp(api, 'owner');
      orgId = await createOrg(api, owner, `acme-${database}`);
      viewer = await signUpMember(api, owner, orgId, 'viewer', 'viewer');
      outsider = await signUp(api, 'outsider');
      await createOrg(api, outsider, `other-${database}`);
    });
    afterAll(async () => api?.close());

    it('answers 401 without credentials, with a forged cookie and with an unknown key', async () => {
      expect((await api.call('GET', '/api/v1/auth/me')).status).toBe(401);
      const forged = `better-auth.session_token=${signSessionToken('made-up-token', 'x'.repeat(64))}`;
      const res = await api.call('GET', '/api/v1/auth/me', { cookie: forged });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect((await api.call('GET', '/api/v1/auth/me', { key: 'svc_nope' })).status).toBe(401);
      expect((await api.call('GET', '/api/v1/audit', { key: 'not-a-key' })).status).toBe(401);
    });

    it('has no /auth/register, /auth/login or /auth/logout', async () => {
      for (const path of ['register', 'login', 'logout']) {
        for (const method of ['GET', 'POST']) {
          const res = await api.call(method, `/api/v1/auth/${path}`, { cookie: owner.cookie, body: {} });
          expect(res.status).toBe(404);
          expect(res.body).toEqual({ error: expect.any(String) });
        }
      }
    });

    it('tells the caller who it is, by session and by key', async () => {
      const me = await api.call<{ user: Json }>('GET', '/api/v1/auth/me', { cookie: owner.cookie });
      expect(me.status).toBe(200);
      expect(me.body.user).toEqual({ id: owner.id, email: owner.email, name: 'owner', role: 'Owner', orgId });
      const v = await api.call<{ user: Json }>('GET', '/api/v1/auth/me', { cookie: viewer.cookie });
      expect(v.body.user['role']).toBe('Viewer');
      const { key } = await mintKey(api, { cookie: viewer.cookie }, { role: 'read' });
      const byKey = await api.call<{ user: Json }>('GET', '/api/v1/auth/me', { key });
      expect(byKey.body.user).toMatchObject({ id: viewer.id, role: 'Viewer', orgId });
      expect(me.headers['x-request-id']).toEqual(expect.any(String));
    });

    it('lists and revokes sessions; a revoked session and a signed-out one lose access at once', async () => {
      const second = await signIn(api, owner);
      const list = await api.call<{ sessions: Json[] }>('GET', '/api/v1/auth/sessions', { cookie: owner.cookie });
      expect(list.status).toBe(200);
      expect(list.body.sessions.length).toBeGreaterThanOrEqual(2);
      const current = list.body.sessions.filter((s) => s['current'] === true);
      expect(current).toHaveLength(1);
      for (const s of list.body.sessions) {
        expect(s).toEqual({
          id: expect.any(String),
          current: expect.any(Boolean),
          createdAt: expect.any(String),
          expiresAt: expect.any(String),
        });
      }
      const fromSecond = await api.call<{ sessions: Json[] }>('GET', '/api/v1/auth/sessions', { cookie: second });
      const secondId = fromSecond.body.sessions.find((s) => s['current'] === true)?.['id'];
      expect(secondId).toBeDefined();

      const revoked = await api.call('DELETE', `/api/v1/auth/sessions/${String(secondId)}`, { cookie: owner.cookie });
      expect(revoked).toMatchObject({ status: 200, body: { revoked: true } });
      expect((await api.call('GET', '/api/v1/auth/me', { cookie: second })).status).toBe(401);
      expect((await api.call('GET', '/api/v1/auth/me', { cookie: owner.cookie })).status).toBe(200);
      expect((await api.call('DELETE', '/api/v1/auth/sessions/unknown', { cookie: owner.cookie })).status).toBe(404);
      // Another user's session reads as absent.
      const viewerSessions = await api.call<{ sessions: Json[] }>('GET', '/api/v1/auth/sessions', {
        cookie: viewer.cookie,
      });
      const viewerSession = String(viewerSessions.body.sessions[0]?.['id']);
      expect(
        (await api.call('DELETE', `/api/v1/auth/sessions/${viewerSession}`, { cookie: owner.cookie })).status,
      ).toBe(404);
      expect((await api.call('GET', '/api/v1/auth/me', { cookie: viewer.cookie })).status).toBe(200);

      const third = await signIn(api, owner);
      const out = await api.call('POST', '/api/auth/sign-out', { cookie: third, body: {} });
      expect(out.status).toBe(200);
      expect((await api.call('GET', '/api/v1/auth/me', { cookie: third })).status).toBe(401);
    });

    it('rejects an org slug that cannot name a namespace', async () => {
      const res = await api.call('POST', '/api/auth/organization/create', {
        cookie: outsider.cookie,
        body: { name: 'Bad', slug: 'Bad_Slug' },
      });
      expect(res.status).toBe(400);
    });

    it('refuses API keys on the session-only routes', async () => {
      const { key } = await mintKey(api, { cookie: owner.cookie }, { role: 'admin' });
      expect((await api.call('GET', '/api/v1/auth/sessions', { key })).status).toBe(403);
      expect((await api.call('DELETE', '/api/v1/auth/sessions/x', { key })).status).toBe(403);
    });

    it('answers can-i with the same evaluation as the routes, for sessions and every key ceiling', async () => {
      const can = async (
        cred: { cookie?: string; key?: string },
        permission: string,
        scope?: string,
        scope_id?: string,
      ) => {
        const res = await api.call<{ allowed: boolean }>('POST', '/api/v1/auth/can-i', {
          ...cred,
          body: { permission, ...(scope ? { scope } : {}), ...(scope_id !== undefined ? { scope_id } : {}) },
        });
        expect(res.status).toBe(200);
        return res.body.allowed;
      };
      expect(await can({ cookie: owner.cookie }, 'deployment:manage')).toBe(true);
      expect(await can({ cookie: owner.cookie }, 'secretstore:manage')).toBe(true);
      expect(await can({ cookie: viewer.cookie }, 'deployment:read', 'deployment', '/web')).toBe(true);
      expect(await can({ cookie: viewer.cookie }, 'deployment:sync', 'deployment', '/web')).toBe(false);
      expect(await can({ cookie: viewer.cookie }, 'audit:read')).toBe(false);

      const read = await mintKey(api, { cookie: owner.cookie }, { role: 'read' });
      const sync = await mintKey(api, { cookie: owner.cookie }, { role: 'sync' });
      const admin = await mintKey(api, { cookie: owner.cookie }, { role: 'admin' });
      expect(await can({ key: read.key }, 'deployment:read', 'deployment', '/web')).toBe(true);
      expect(await can({ key: read.key }, 'deployment:sync', 'deployment', '/web')).toBe(false);
      expect(await can({ key: sync.key }, 'deployment:sync', 'deployment', '/web')).toBe(true);
      expect(await can({ key: sync.key }, 'deployment:manage', 'deployment', '/web')).toBe(false);
      expect(await can({ key: admin.key }, 'deployment:manage', 'deployment', '/web')).toBe(true);
      expect(await can({ key: admin.key }, 'secretstore:manage')).toBe(false);
      expect(await can({ key: admin.key }, 'registry:manage')).toBe(false);

      const cluster = await mintKey(
        api,
        { cookie: owner.cookie },
        { role: 'sync', scope: 'cluster', scope_id: 'east' },
      );
      expect(await can({ key: cluster.key }, 'deployment:sync', 'deployment', 'east/web')).toBe(true);
      expect(await can({ key: cluster.key }, 'deployment:sync', 'deployment', 'west/web')).toBe(false);
      expect(await can({ key: cluster.key }, 'deployment:sync')).toBe(false);
      const deployment = await mintKey(
        api,
        { cookie: owner.cookie },
        { role: 'admin', scope: 'deployment', scope_id: '/web' },
      );
      expect(await can({ key: deployment.key }, 'deployment:manage', 'deployment', '/web')).toBe(true);
      expect(await can({ key: deployment.key }, 'deployment:manage', 'deployment', '/api')).toBe(false);
      // A key never exceeds its owner: an admin key of a Viewer only reads.
      const viewerAdmin = await mintKey(api, { cookie: viewer.cookie }, { role: 'admin' });
      expect(await can({ key: viewerAdmin.key }, 'deployment:sync', 'deployment', '/web')).toBe(false);
    });

    it('refuses bad can-i bodies with 400', async () => {
      const bad: unknown[] = [
        {},
        { permission: 'deployment:read', extra: 1 },
        { permission: 7 },
        { permission: 'deployment read' },
        { permission: 'deployment:read', scope: 'galaxy' },
        { permission: 'deployment:read', scope: 'org', scope_id: 'x' },
        { permission: 'deployment:read', scope: 'deployment', scope_id: 'no-slash' },
        { permission: 'deployment:read', scope: 'cluster', scope_id: 'Bad_Name' },
        '[1,2]',
        '{not json',
      ];
      for (const body of bad) {
        const res = await api.call('POST', '/api/v1/auth/can-i', { cookie: owner.cookie, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    });

    it('mints keys shown once, lists prefixes only, revokes them with effect on the next request, and audits both', async () => {
      const created = await api.call<Json>('POST', '/api/v1/auth/api-keys', {
        cookie: owner.cookie,
        body: { name: 'ci', role: 'sync', scope: 'deployment', scope_id: '/web', expires_days: 30 },
      });
      expect(created.status).toBe(201);
      const key = String(created.body['key']);
      expect(key).toMatch(/^svc_/);
      expect(created.body).toMatchObject({
        name: 'ci',
        role: 'sync',
        scope: 'deployment',
        scope_id: '/web',
        expires_days: 30,
        revoked: false,
      });
      expect(String(created.body['prefix'])).toBe(key.slice(0, 12));
      expect(Date.parse(String(created.body['expires_at']))).toBeGreaterThan(Date.now() + 29 * 86_400_000);

      const listed = await api.call<{ api_keys: Json[] }>('GET', '/api/v1/auth/api-keys', { cookie: owner.cookie });
      expect(listed.status).toBe(200);
      const entry = listed.body.api_keys.find((k) => k['id'] === created.body['id']);
      expect(entry).toMatchObject({ name: 'ci', prefix: key.slice(0, 12) });
      expect(JSON.stringify(listed.body)).not.toContain(key);

      expect((await api.call('GET', '/api/v1/auth/me', { key })).status).toBe(200);
      // Another user cannot see or revoke it.
      const theirs = await api.call<{ api_keys: Json[] }>('GET', '/api/v1/auth/api-keys', { cookie: viewer.cookie });
      expect(theirs.body.api_keys.some((k) => k['id'] === created.body['id'])).toBe(false);
      expect(
        (await api.call('DELETE', `/api/v1/auth/api-keys/${String(created.body['id'])}`, { cookie: outsider.cookie }))
          .status,
      ).toBe(404);
      expect(
        (await api.call('DELETE', `/api/v1/auth/api-keys/${String(created.body['id'])}`, { cookie: viewer.cookie }))
          .status,
      ).toBe(404);

      const revoked = await api.call('DELETE', `/api/v1/auth/api-keys/${String(created.body['id'])}`, {
        cookie: owner.cookie,
      });
      expect(revoked).toMatchObject({ status: 200, body: { revoked: true } });
      expect((await api.call('GET', '/api/v1/auth/me', { key })).status).toBe(401);
      expect(
        (await api.call('DELETE', `/api/v1/auth/api-keys/${String(created.body['id'])}`, { cookie: owner.cookie }))
          .status,
      ).toBe(404);

      const audit = await api.call<{ entries: Json[] }>('GET', '/api/v1/audit?limit=200', { cookie: owner.cookie });
      const mine = audit.body.entries.filter((e) => e['resource_id'] === created.body['id']);
      expect(mine.map((e) => e['action'])).toEqual(['apikey.revoke', 'apikey.create']);
      expect(mine[1]).toMatchObject({ user_id: owner.id, resource_type: 'apikey', resource_name: 'ci' });
      expect(JSON.stringify(audit.body)).not.toContain(key);
    });

    it('mints and revokes no key when the audit write fails (the key and its entry commit together)', async () => {
      const kept = await mintKey(api, { cookie: owner.cookie }, { name: 'kept', role: 'read' });
      const keyCount = async () =>
        (await api.call<{ api_keys: Json[] }>('GET', '/api/v1/auth/api-keys', { cookie: owner.cookie })).body.api_keys
          .length;
      const before = await keyCount();
      const db = openStore(api.database);
      const allow = await refuseAuditInserts(db);
      try {
        const mint = await api.call('POST', '/api/v1/auth/api-keys', {
          cookie: owner.cookie,
          body: { name: 'unaudited', role: 'read' },
        });
        expect(mint).toMatchObject({ status: 500, body: { error: expect.any(String) } });
        expect(await keyCount()).toBe(before);
        const revoke = await api.call('DELETE', `/api/v1/auth/api-keys/${kept.id}`, { cookie: owner.cookie });
        expect(revoke.status).toBe(500);
        expect((await api.call('GET', '/api/v1/auth/me', { key: kept.key })).status).toBe(200);
      } finally {
        await allow();
        await db.close();
      }
      const revoke = await api.call('DELETE', `/api/v1/auth/api-keys/${kept.id}`, { cookie: owner.cookie });
      expect(revoke.status).toBe(200);
      expect((await api.call('GET', '/api/v1/auth/me', { key: kept.key })).status).toBe(401);
    });

    it('lets a key mint keys only inside its own ceilings', async () => {
      const sync = await mintKey(api, { cookie: owner.cookie }, { role: 'sync', scope: 'cluster', scope_id: 'east' });
      expect(
        (
          await api.call('POST', '/api/v1/auth/api-keys', {
            key: sync.key,
            body: { name: 'x', role: 'admin', scope: 'cluster', scope_id: 'east' },
          })
        ).status,
      ).toBe(403);
      expect(
        (await api.call('POST', '/api/v1/auth/api-keys', { key: sync.key, body: { name: 'x', role: 'read' } })).status,
      ).toBe(403);
      const ok = await api.call('POST', '/api/v1/auth/api-keys', {
        key: sync.key,
        body: { name: 'x', role: 'read', scope: 'deployment', scope_id: 'east/web' },
      });
      expect(ok.status).toBe(201);
    });

    it('refuses bad API key bodies with 400 and writes nothing', async () => {
      const before = await api.call<{ api_keys: Json[] }>('GET', '/api/v1/auth/api-keys', { cookie: owner.cookie });
      const bad: unknown[] = [
        {},
        { name: 'x' },
        { role: 'read' },
        { name: '', role: 'read' },
        { name: 5, role: 'read' },
        { name: 'x', role: 'root' },
        { name: 'x', role: 'read', expires_days: -1 },
        { name: 'x', role: 'read', expires_days: '7' },
        { name: 'x', role: 'read', expires_days: 1.5 },
        { name: 'x', role: 'read', scope: 'cluster' },
        { name: 'x', role: 'read', scope: 'deployment', scope_id: 'a/b/c' },
        { name: 'x', role: 'read', color: 'red' },
      ];
      for (const body of bad) {
        const res = await api.call('POST', '/api/v1/auth/api-keys', { cookie: owner.cookie, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
      const big = await api.call('POST', '/api/v1/auth/api-keys', {
        cookie: owner.cookie,
        body: { name: 'x'.repeat(2 * 1024 * 1024), role: 'read' },
      });
      expect(big.status).toBe(413);
      const after = await api.call<{ api_keys: Json[] }>('GET', '/api/v1/auth/api-keys', { cookie: owner.cookie });
      expect(after.body.api_keys.length).toBe(before.body.api_keys.length);
    });

    it('grants role bindings made over HTTP, and only org managers may make them', async () => {
      const can = async (cookie: string, scope_id: string) =>
        (
          await api.call<{ allowed: boolean }>('POST', '/api/v1/auth/can-i', {
            cookie,
            body: { permission: 'deployment:sync', scope: 'deployment', scope_id },
          })
        ).body.allowed;
      expect(await can(viewer.cookie, '/payments')).toBe(false);
      const denied = await api.call('POST', '/api/v1/role-bindings', {
        cookie: viewer.cookie,
        body: { subject_type: 'user', subject_id: viewer.id, scope: 'org', level: 'admin' },
      });
      expect(denied.status).toBe(403);
      const bound = await api.call<Json>('POST', '/api/v1/role-bindings', {
        cookie: owner.cookie,
        body: {
          subject_type: 'user',
          subject_id: viewer.id,
          scope: 'deployment',
          scope_id: '/payments',
          level: 'sync',
        },
      });
      expect(bound.status).toBe(201);
      expect(await can(viewer.cookie, '/payments')).toBe(true);
      expect(await can(viewer.cookie, '/web')).toBe(false);
      // Someone outside the org cannot be bound.
      const foreign = await api.call('POST', '/api/v1/role-bindings', {
        cookie: owner.cookie,
        body: { subject_type: 'user', subject_id: outsider.id, scope: 'org', level: 'admin' },
      });
      expect(foreign.status).toBe(404);
      const removed = await api.call('DELETE', `/api/v1/role-bindings/${String(bound.body['id'])}`, {
        cookie: owner.cookie,
      });
      expect(removed.status).toBe(200);
      expect(await can(viewer.cookie, '/payments')).toBe(false);
    });

    it('refuses bad role-binding bodies with 400 and writes nothing', async () => {
      const before = await api.call<{ bindings: Json[] }>('GET', '/api/v1/role-bindings', { cookie: owner.cookie });
      for (const body of [
        {},
        { subject_type: 'user', subject_id: viewer.id, scope: 'org' },
        { subject_type: 'robot', subject_id: viewer.id, scope: 'org', level: 'read' },
        { subject_type: 'user', subject_id: viewer.id, scope: 'org', level: 'root' },
        { subject_type: 'user', subject_id: viewer.id, scope: 'cluster', level: 'read' },
        { subject_type: 'user', subject_id: viewer.id, scope: 'org', level: 'read', note: 'x' },
        { subject_type: 'user', subject_id: 42, scope: 'org', level: 'read' },
      ]) {
        const res = await api.call('POST', '/api/v1/role-bindings', { cookie: owner.cookie, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
      const after = await api.call<{ bindings: Json[] }>('GET', '/api/v1/role-bindings', { cookie: owner.cookie });
      expect(after.body.bindings).toEqual(before.body.bindings);
    });

    it('grants team bindings to the team members (teams from the auth component)', async () => {
      const team = await api.call<Json>('POST', '/api/auth/organization/create-team', {
        cookie: owner.cookie,
        body: { name: 'payments-team', organizationId: orgId },
      });
      expect(team.status).toBe(200);
      const audited = await auditEntries(api, owner, 'team.create', 'payments-team');
      expect(audited).toEqual([
        expect.objectContaining({ user_id: owner.id, resource_type: 'team', resource_id: team.body['id'] }),
      ]);
      // The default team Better Auth creates with every org is audited too.
      expect(await auditEntries(api, owner, 'team.create', `acme-${database}`)).toEqual([
        expect.objectContaining({ user_id: owner.id, resource_type: 'team' }),
      ]);
      // Team membership goes through /api/v1/teams (svc's permissions and audit); Better Auth's own route is off.
      const direct = await api.call('POST', '/api/auth/organization/add-team-member', {
        cookie: owner.cookie,
        body: { teamId: team.body['id'], userId: viewer.id },
      });
      expect(direct.status).toBe(404);
      const added = await api.call('POST', `/api/v1/teams/${team.body['id']}/members`, {
        cookie: owner.cookie,
        body: { user_id: viewer.id },
      });
      expect(added.status).toBe(201);
      const bound = await api.call('POST', '/api/v1/role-bindings', {
        cookie: owner.cookie,
        body: { subject_type: 'team', subject_id: team.body['id'], scope: 'cluster', scope_id: 'east', level: 'admin' },
      });
      expect(bound.status).toBe(201);
      const can = await api.call<{ allowed: boolean }>('POST', '/api/v1/auth/can-i', {
        cookie: viewer.cookie,
        body: { permission: 'deployment:manage', scope: 'deployment', scope_id: 'east/shop' },
      });
      expect(can.body.allowed).toBe(true);
      const outside = await api.call<{ allowed: boolean }>('POST', '/api/v1/auth/can-i', {
        cookie: viewer.cookie,
        body: { permission: 'deployment:manage', scope: 'cluster', scope_id: 'west' },
      });
      expect(outside.body.allowed).toBe(false);
    });

    it('invites a member as docs/api.md says: the inviter gets the invitation id and hands it over; the invitee reads and accepts it', async () => {
      const invitee = await signUp(api, 'invitee');
      const invite = await api.call<Json>('POST', '/api/auth/organization/invite-member', {
        cookie: owner.cookie,
        body: { email: invitee.email, role: 'viewer' },
      });
      expect(invite.status).toBe(200);
      expect(invite.body).toMatchObject({
        email: invitee.email,
        role: 'viewer',
        status: 'pending',
        organizationId: orgId,
      });
      const id = String(invite.body['id']);
      expect(Date.parse(String(invite.body['expiresAt'])) - Date.parse(String(invite.body['createdAt']))).toBe(
        48 * 3600_000,
      );
      const pending = await api.call<Json[]>('GET', '/api/auth/organization/list-invitations', {
        cookie: owner.cookie,
      });
      expect(pending.body.find((i) => i['id'] === id)).toMatchObject({ status: 'pending' });
      // svc sends no invitation email and verifies no email address, so Better Auth will not list an invitee's
      // invitations for them: the id must come from the inviter.
      const mine = await api.call<Json>('GET', '/api/auth/organization/list-user-invitations', {
        cookie: invitee.cookie,
      });
      expect(mine).toMatchObject({ status: 403, body: { code: 'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION' } });
      const seen = await api.call<Json>('GET', `/api/auth/organization/get-invitation?id=${id}`, {
        cookie: invitee.cookie,
      });
      expect(seen.body).toMatchObject({
        organizationName: `acme-${database}`,
        inviterEmail: owner.email,
        role: 'viewer',
      });
      // Only the invitee's own session may accept it.
      const notTheirs = await api.call<Json>('POST', '/api/auth/organization/accept-invitation', {
        cookie: outsider.cookie,
        body: { invitationId: id },
      });
      expect(notTheirs.status).toBe(403);
      const accepted = await api.call<Json>('POST', '/api/auth/organization/accept-invitation', {
        cookie: invitee.cookie,
        body: { invitationId: id },
      });
      expect(accepted.status).toBe(200);
      expect(accepted.body['member']).toMatchObject({ organizationId: orgId, role: 'viewer' });
      const active = await api.call('POST', '/api/auth/organization/set-active', {
        cookie: invitee.cookie,
        body: { organizationId: orgId },
      });
      expect(active.status).toBe(200);
      const me = await api.call<{ user: Json }>('GET', '/api/v1/auth/me', { cookie: invitee.cookie });
      expect(me.body.user).toMatchObject({ orgId, role: 'Viewer' });
    });

    it('follows the session’s active org; keys stay bound to the org they were minted in', async () => {
      const both = await signUp(api, 'both');
      const homeId = await createOrg(api, both, `home-${database}`);
      const homeKey = await mintKey(api, { cookie: both.cookie }, { role: 'read' });
      await addMember(api, owner, orgId, both, 'contributor');
      const me = await api.call<{ user: Json }>('GET', '/api/v1/auth/me', { cookie: both.cookie });
      expect(me.body.user).toMatchObject({ orgId, role: 'Contributor' });
      const byKey = await api.call<{ user: Json }>('GET', '/api/v1/auth/me', { key: homeKey.key });
      expect(byKey.body.user).toMatchObject({ orgId: homeId, role: 'Owner' });
      const back = await api.call('POST', '/api/auth/organization/set-active', {
        cookie: both.cookie,
        body: { organizationId: homeId },
      });
      expect(back.status).toBe(200);
      const home = await api.call<{ user: Json }>('GET', '/api/v1/auth/me', { cookie: both.cookie });
      expect(home.body.user).toMatchObject({ orgId: homeId, role: 'Owner' });
    });

    it('takes every grant away from the keys of a member who leaves the org', async () => {
      const leaver = await signUpMember(api, owner, orgId, 'leaver', 'admin');
      const { key } = await mintKey(api, { cookie: leaver.cookie }, { role: 'admin' });
      const before = await api.call<{ allowed: boolean }>('POST', '/api/v1/auth/can-i', {
        key,
        body: { permission: 'deployment:manage' },
      });
      expect(before.body.allowed).toBe(true);
      const removed = await api.call('POST', '/api/auth/organization/remove-member', {
        cookie: owner.cookie,
        body: { memberIdOrEmail: leaver.email, organizationId: orgId },
      });
      expect(removed.status).toBe(200);
      const me = await api.call<{ user: Json }>('GET', '/api/v1/auth/me', { key });
      expect(me.body.user).toMatchObject({ orgId: '', role: '' });
      const after = await api.call<{ allowed: boolean }>('POST', '/api/v1/auth/can-i', {
        key,
        body: { permission: 'deployment:read' },
      });
      expect(after.body.allowed).toBe(false);
      expect((await api.call('GET', '/api/v1/audit', { key })).status).toBe(403);
    });

    it('keeps orgs apart: keys and grants of one org mean nothing in another', async () => {
      const { key } = await mintKey(api, { cookie: outsider.cookie }, { role: 'admin' });
      const me = await api.call<{ user: Json }>('GET', '/api/v1/auth/me', { key });
      expect(me.body.user['orgId']).not.toBe(orgId);
      const theirKeys = await api.call<{ api_keys: Json[] }>('GET', '/api/v1/auth/api-keys', {
        cookie: outsider.cookie,
      });
      const ownerKeys = await api.call<{ api_keys: Json[] }>('GET', '/api/v1/auth/api-keys', { cookie: owner.cookie });
      const ours = new Set(ownerKeys.body.api_keys.map((k) => k['id']));
      expect(theirKeys.body.api_keys.some((k) => ours.has(k['id']))).toBe(false);
      const bindings = await api.call<{ bindings: Json[] }>('GET', '/api/v1/role-bindings', {
        cookie: outsider.cookie,
      });
      expect(bindings.body.bindings).toEqual([]);
    });
  });
}

describe('logs', () => {
  it('never carry passwords, session tokens or API keys', async () => {
    const lines: string[] = [];
    const api = await startTestApi({ logLines: lines });
    try {
      const user = await signUp(api, 'logged');
      await createOrg(api, user, 'logged');
      const { key } = await mintKey(api, { cookie: user.cookie }, { role: 'admin' });
      expect((await api.call('GET', '/api/v1/auth/me', { key })).status).toBe(200);
      expect(
        (await api.call('GET', '/api/v1/auth/me', { cookie: 'better-auth.session_token=forged.value' })).status,
      ).toBe(401);
      const token = decodeURIComponent(user.cookie.split('=')[1] ?? '').split('.')[0] ?? '';
      const log = lines.join('');
      expect(lines.length).toBeGreaterThan(5);
      expect(log).toContain('"reqId"');
      for (const secret of [key, token, 'correct horse battery', 'forged.value']) {
        expect(log.includes(secret), secret).toBe(false);
      }
    } finally {
      await api.close();
    }
  });
});

describe('a renamed session cookie (SESSION_COOKIE_NAME)', () => {
  it('is the cookie the auth component sets and the API accepts', async () => {
    const api = await startTestApi({ sessionCookieName: 'svc_session' });
    try {
      const user = await signUp(api, 'renamed', 'svc_session');
      expect(user.cookie.startsWith('svc_session=')).toBe(true);
      expect((await api.call('GET', '/api/v1/auth/me', { cookie: user.cookie })).status).toBe(200);
      const value = user.cookie.slice('svc_session='.length);
      expect((await api.call('GET', '/api/v1/auth/me', { cookie: `better-auth.session_token=${value}` })).status).toBe(
        401,
      );
    } finally {
      await api.close();
    }
  });
});
