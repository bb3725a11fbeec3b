/**
 * /teams on Better Auth's organization teams, over HTTP: create, read, rename, members, delete; team role bindings
 * granting and revoking a member's permissions (can-i names the team binding); every change audited once; and no
 * route reaching another org's team. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWith, postgresRequirement } from '../harness/index.ts';
import {
  auditEntries,
  createOrg,
  expectEveryNotFound,
  signUp,
  signUpMember,
  startTestApi,
  type TestApi,
  type TestUser,
} from './api-support.ts';

type Json = Record<string, unknown>;

for (const database of ['sqlite', 'postgres'] as const) {
  (database === 'postgres' ? describeWith(postgresRequirement()) : describe)(`teams on ${database}`, () => {
    let api: TestApi;
    let owner: TestUser;
    let viewer: TestUser;
    let stranger: TestUser;
    let orgId: string;

    beforeAll(async () => {
      api = await startTestApi({ database });
      owner = await signUp(api, 'owner');
      orgId = await createOrg(api, owner, `teams-${database}`);
      viewer = await signUpMember(api, owner, orgId, 'viewer', 'viewer');
      stranger = await signUp(api, 'stranger');
      await createOrg(api, stranger, `other-${database}`);
    });
    afterAll(async () => api?.close());

    const canSync = async (user: TestUser) =>
      (
        await api.call<{ allowed: boolean; via: Json[] }>('POST', '/api/v1/auth/can-i', {
          cookie: user.cookie,
          body: { permission: 'deployment:sync', scope: 'deployment', scope_id: '/payments' },
        })
      ).body;

    it('creates, reads, renames and lists teams, auditing each change once as the caller', async () => {
      const created = await api.call<Json>('POST', '/api/v1/teams', {
        cookie: owner.cookie,
        body: { name: 'payments' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'payments', member_count: 0 });
      const id = created.body['id'] as string;
      expect(await auditEntries(api, owner, 'team.create', 'payments')).toEqual([
        expect.objectContaining({ user_id: owner.id, resource_id: id }),
      ]);
      expect(
        (await api.call('POST', '/api/v1/teams', { cookie: owner.cookie, body: { name: 'payments' } })).status,
      ).toBe(409);
      const renamed = await api.call<Json>('PATCH', `/api/v1/teams/${id}`, {
        cookie: owner.cookie,
        body: { name: 'billing' },
      });
      expect(renamed).toMatchObject({ status: 200, body: { id, name: 'billing' } });
      expect(await auditEntries(api, owner, 'team.update', 'billing')).toEqual([
        expect.objectContaining({ user_id: owner.id, details: { from: 'payments', to: 'billing' } }),
      ]);
      const list = await api.call<{ teams: Json[] }>('GET', '/api/v1/teams', { cookie: viewer.cookie });
      expect(list.body.teams.map((t) => t['name'])).toEqual(expect.arrayContaining(['billing', `teams-${database}`]));
      // Reading is for every member; changing needs team:manage.
      expect((await api.call('POST', '/api/v1/teams', { cookie: viewer.cookie, body: { name: 'x' } })).status).toBe(
        403,
      );
      expect(
        (await api.call('POST', '/api/v1/teams', { cookie: owner.cookie, body: { name: 'x', color: 'red' } })).status,
      ).toBe(400);
    });

    it('grants a member its team’s bindings and takes them away with the membership', async () => {
      const team = await api.call<Json>('POST', '/api/v1/teams', { cookie: owner.cookie, body: { name: 'deployers' } });
      const id = team.body['id'] as string;
      const bound = await api.call<Json>('POST', '/api/v1/role-bindings', {
        cookie: owner.cookie,
        body: { subject_type: 'team', subject_id: id, scope: 'deployment', scope_id: '/payments', level: 'sync' },
      });
      expect(bound.status).toBe(201);
      expect((await canSync(viewer)).allowed).toBe(false);

      const added = await api.call<Json>('POST', `/api/v1/teams/${id}/members`, {
        cookie: owner.cookie,
        body: { user_id: viewer.id },
      });
      expect(added).toMatchObject({ status: 201, body: { user_id: viewer.id, email: viewer.email } });
      expect(
        (await api.call('POST', `/api/v1/teams/${id}/members`, { cookie: owner.cookie, body: { user_id: viewer.id } }))
          .status,
      ).toBe(409);
      const granted = await canSync(viewer);
      expect(granted.allowed).toBe(true);
      expect(granted.via).toEqual([
        expect.objectContaining({ source: 'binding', subject_type: 'team', subject_id: id, level: 'sync' }),
      ]);
      const detail = await api.call<Json>('GET', `/api/v1/teams/${id}`, { cookie: viewer.cookie });
      expect(detail.body).toMatchObject({
        member_count: 1,
        members: [expect.objectContaining({ user_id: viewer.id })],
        bindings: [expect.objectContaining({ scope: 'deployment', scope_id: '/payments', level: 'sync' })],
      });

      const removed = await api.call('DELETE', `/api/v1/teams/${id}/members/${viewer.id}`, { cookie: owner.cookie });
      expect(removed).toMatchObject({ status: 200, body: { removed: true } });
      expect((await canSync(viewer)).allowed).toBe(false);
      expect(
        (await api.call('DELETE', `/api/v1/teams/${id}/members/${viewer.id}`, { cookie: owner.cookie })).status,
      ).toBe(404);
      // Only members of the org can join its teams.
      expect(
        (
          await api.call('POST', `/api/v1/teams/${id}/members`, {
            cookie: owner.cookie,
            body: { user_id: stranger.id },
          })
        ).status,
      ).toBe(404);
      expect(
        (await auditEntries(api, owner, 'team.member.add', 'deployers')).map((e) => [e['user_id'], e['details']]),
      ).toEqual([[owner.id, { user_id: viewer.id }]]);
      expect(await auditEntries(api, owner, 'team.member.remove', 'deployers')).toHaveLength(1);

      // Deleting the team deletes its bindings with it.
      await api.call('POST', `/api/v1/teams/${id}/members`, { cookie: owner.cookie, body: { user_id: viewer.id } });
      expect((await canSync(viewer)).allowed).toBe(true);
      const deleted = await api.call('DELETE', `/api/v1/teams/${id}`, { cookie: owner.cookie });
      expect(deleted).toMatchObject({ status: 200, body: { deleted: true } });
      expect((await canSync(viewer)).allowed).toBe(false);
      const bindings = await api.call<{ bindings: Json[] }>('GET', '/api/v1/role-bindings', { cookie: owner.cookie });
      expect(bindings.body.bindings.filter((b) => b['subject_id'] === id)).toEqual([]);
      expect(await auditEntries(api, owner, 'team.delete', 'deployers')).toEqual([
        expect.objectContaining({ user_id: owner.id, details: { bindings_removed: 1 } }),
      ]);
      expect((await api.call('GET', `/api/v1/teams/${id}`, { cookie: owner.cookie })).status).toBe(404);
    });

    it('keeps the org’s last team', async () => {
      const solo = await signUp(api, 'solo');
      await createOrg(api, solo, `solo-${database}`);
      const list = await api.call<{ teams: Json[] }>('GET', '/api/v1/teams', { cookie: solo.cookie });
      expect(list.body.teams).toHaveLength(1);
      const last = list.body.teams[0]?.['id'] as string;
      expect((await api.call('DELETE', `/api/v1/teams/${last}`, { cookie: solo.cookie })).status).toBe(409);
    });

    it('reaches no other org’s team on any route', async () => {
      const team = await api.call<Json>('POST', '/api/v1/teams', { cookie: owner.cookie, body: { name: 'private' } });
      const id = team.body['id'] as string;
      const theirs = await api.call<{ teams: Json[] }>('GET', '/api/v1/teams', { cookie: stranger.cookie });
      expect(theirs.body.teams.map((t) => t['id'])).not.toContain(id);
      const tries: Array<[string, string, unknown?]> = [
        ['GET', `/api/v1/teams/${id}`],
        ['PATCH', `/api/v1/teams/${id}`, { name: 'mine' }],
        ['DELETE', `/api/v1/teams/${id}`],
        ['POST', `/api/v1/teams/${id}/members`, { user_id: stranger.id }],
        ['DELETE', `/api/v1/teams/${id}/members/${owner.id}`],
      ];

      await expectEveryNotFound(api, { cookie: stranger.cookie }, tries);
      const bind = await api.call('POST', '/api/v1/role-bindings', {
        cookie: stranger.cookie,
        body: { subject_type: 'team', subject_id: id, scope: 'org', level: 'admin' },
      });
      expect(bind.status).toBe(404);
      expect((await api.call<Json>('GET', `/api/v1/teams/${id}`, { cookie: owner.cookie })).body['name']).toBe(
        'private',
      );
    });
  });
}
