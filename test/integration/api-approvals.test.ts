/**
 * Approval policies (issue 30 item 4) through the API against the real operator and database: the requester of a
 * held sync may not approve it (403); an App policy naming a team and a user admits only them (403 for another
 * contributor); two distinct approvals are needed and each is listed on the App and in the audit log, and only the
 * second releases the staged revision; the org policy applies to an App without its own and is set by org:manage.
 * `svc app approvals`, `svc approval-policy` and the MCP tool app_approvals show the same. A held sync is dropped by
 * the operator at its App policy's expiry (Failed, reason ApprovalExpired, an Event; its approvals no longer count;
 * `svc app status` shows it); an approval past the org policy's expiry is refused (409).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, runCli, startGitServer } from '../harness/index.ts';
import { auditEntries, mintKey, type OrgApi, signUpMember, startOrgApi, type TestUser } from './api-support.ts';
import { connectMcp } from './mcp-support.ts';
import {
  configMapYaml,
  deleteNamespaces,
  eventsOnceReported,
  getApp,
  startTestOperator,
  type TestOperator,
  unique,
  waitForApp,
} from './operator-support.ts';

type Json = Record<string, unknown>;

describe('approval policies, with the real operator', () => {
  let org: OrgApi;
  let git: GitServer;
  let op: TestOperator;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const dests: string[] = [];

  beforeAll(async () => {
    git = await startGitServer();
    org = await startOrgApi('approvals');
    op = await startTestOperator(org.orgNs);
    alice = await signUpMember(org.api, org.owner, org.orgId, 'alice', 'contributor');
    bob = await signUpMember(org.api, org.owner, org.orgId, 'bob', 'contributor');
    carol = await signUpMember(org.api, org.owner, org.orgId, 'carol', 'contributor');
    const team = await org.api.call<Json>('POST', '/api/v1/teams', { cookie: org.owner.cookie, body: { name: 'sre' } });
    expect(team.status).toBe(201);
    const added = await org.api.call('POST', `/api/v1/teams/${String(team.body['id'])}/members`, {
      cookie: org.owner.cookie,
      body: { user_id: bob.id },
    });
    expect(added.status).toBe(201);
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    await deleteNamespaces(org.orgNs, ...dests);
  });

  /** Creates a Git App through the API and waits for the operator's first report on it. */
  async function gitApp(name: string, syncPolicy: Json): Promise<{ path: string; head: string }> {
    const repo = await git.createRepo(unique(name), { 'm/a.yaml': configMapYaml('a') });
    const dest = unique('dest');
    dests.push(dest);
    const res = await org.api.call('POST', '/api/v1/apps', {
      cookie: org.owner.cookie,
      body: {
        name,
        namespace: dest,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        sync_policy: syncPolicy,
      },
    });
    expect(res.status).toBe(201);
    const head = await repo.head();
    await waitForApp(org.orgNs, name, 'first report', (a) => a.status?.observedRevision === head);
    return { path: `/api/v1/apps/${dest}/${name}`, head };
  }

  const call = (who: TestUser, method: string, path: string, body?: unknown) =>
    org.api.call<Json>(method, path, { cookie: who.cookie, ...(body === undefined ? {} : { body }) });
  const phaseOf = (name: string, id: unknown, phase: string) =>
    waitForApp(org.orgNs, name, `${phase} ${String(id)}`, (a) => {
      const s = a.status?.operationState;
      return s !== undefined && s.id === id && s.phase === phase;
    });

  /** The CLI (`svc app approvals`) and the MCP tool app_approvals show one approval of two, by `email`. */
  async function expectClientsShow(dest: string, name: string, email: string): Promise<void> {
    await org.api.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(org.api.app.server.address() as AddressInfo).port}`;
    const { key } = await mintKey(org.api, { cookie: alice.cookie }, { role: 'read' });
    const env = { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', SVC_SERVER: base, SVC_API_KEY: key };
    const shown = await runCli(['app', 'approvals', name, '-n', dest], env);
    expect(shown).toMatchObject({ status: 0, stdout: expect.stringMatching(/approvals:\s+1 of 2/) });
    expect(shown.stdout).toMatch(new RegExp(`approved by:\\s+${email.replace(/[.+]/g, '\\$&')}`));
    expect(shown.stdout).toMatch(/may approve:\s+teams sre; users .* \(app policy; never the requester\)/);
    const mcp = await connectMcp(base, key);
    try {
      const result = await mcp.call('app_approvals', { namespace: dest, name });
      expect(result.structuredContent).toMatchObject({
        required: 2,
        approved_by: [expect.objectContaining({ email })],
      });
    } finally {
      await mcp.close();
    }
    const policy = await runCli(['approval-policy', 'get'], env);
    expect(policy).toMatchObject({ status: 0, stdout: expect.stringMatching(/^no org approval policy/) });
  }

  it('refuses a self-approval (403), lets another person approve, and lists the approval', async () => {
    const { path, head } = await gitApp('selfappr', { requiresApproval: true });
    const sync = await call(alice, 'POST', `${path}/sync`);
    expect(sync.status).toBe(200);
    await phaseOf('selfappr', sync.body['operation_id'], 'Held');
    const self = await call(alice, 'POST', `${path}/approve`);
    expect(self).toMatchObject({ status: 403, body: { error: expect.stringMatching(/requester may not approve/) } });
    const before = await call(alice, 'GET', `${path}/approvals`);
    expect(before.body).toMatchObject({
      held: true,
      operation_id: sync.body['operation_id'],
      revision: head,
      requested_by: alice.id,
      required: 1,
      approved_by: [],
      policy_source: 'default',
      may_approve: 'anyone with deployment:sync',
    });
    const ok = await call(carol, 'POST', `${path}/approve`);
    expect(ok).toMatchObject({ status: 200, body: { message: 'Approve requested', revision: head } });
    const done = await phaseOf('selfappr', ok.body['operation_id'], 'Succeeded');
    expect(done.status?.revision).toBe(head);
    const audit = await auditEntries(org.api, org.owner, 'app.approve', 'selfappr');
    expect(audit.map((e) => e['user_id'])).toEqual([carol.id]);
    expect(audit[0]?.['details']).toMatchObject({ released: true, approved_by: [carol.email], required: 1 });
  });

  it('admits only the approvers an App policy names, and needs two distinct approvals', async () => {
    const policy = { count: 2, teams: ['sre'], users: [carol.email] };
    const { path, head } = await gitApp('twoappr', { requiresApproval: true, approval: policy });
    const sync = await call(alice, 'POST', `${path}/sync`);
    await phaseOf('twoappr', sync.body['operation_id'], 'Held');
    const outsider = await call(org.owner, 'POST', `${path}/approve`);
    expect(outsider).toMatchObject({ status: 403, body: { error: expect.stringMatching(/teams sre; users/) } });
    const first = await call(bob, 'POST', `${path}/approve`);
    expect(first).toMatchObject({
      status: 200,
      body: { message: 'Approval recorded (1 of 2)', operation_id: sync.body['operation_id'] },
    });
    expect((await call(bob, 'POST', `${path}/approve`)).status).toBe(409);
    const listed = await call(alice, 'GET', `${path}/approvals`);
    expect(listed.body).toMatchObject({
      held: true,
      required: 2,
      policy_source: 'app',
      teams: ['sre'],
      users: [carol.email],
      approved_by: [expect.objectContaining({ user_id: bob.id, email: bob.email })],
    });
    await expectClientsShow(path.split('/')[4] as string, 'twoappr', bob.email);
    // Still held: one approval of two releases nothing.
    const status = await call(alice, 'GET', `${path}/status`);
    expect(status.body['operationState']).toMatchObject({ id: sync.body['operation_id'], phase: 'Held' });
    const second = await call(carol, 'POST', `${path}/approve`);
    expect(second).toMatchObject({ status: 200, body: { message: 'Approve requested', revision: head } });
    await phaseOf('twoappr', second.body['operation_id'], 'Succeeded');
    const audit = await auditEntries(org.api, org.owner, 'app.approve', 'twoappr');
    expect(audit.map((e) => e['user_id']).sort()).toEqual([bob.id, carol.id].sort());
    expect((await call(alice, 'GET', `${path}/approvals`)).body).toMatchObject({ held: false, approved_by: [] });
  });

  it('drops a held sync at its App policy expiry: Failed, ApprovalExpired, an Event, its approvals no longer count', async () => {
    const { path } = await gitApp('expappr', { requiresApproval: true, approval: { count: 2, expiry: '4s' } });
    const dest = path.split('/')[4] as string;
    const sync = await call(alice, 'POST', `${path}/sync`);
    await phaseOf('expappr', sync.body['operation_id'], 'Held');
    // One approval of the two needed, before the expiry: recorded, not enough.
    expect((await call(bob, 'POST', `${path}/approve`)).status).toBe(200);
    expect((await call(alice, 'GET', `${path}/approvals`)).body).toMatchObject({ held: true, approved_by: [{}] });
    const dropped = await phaseOf('expappr', sync.body['operation_id'], 'Failed');
    const state = dropped.status?.operationState;
    expect(state).toMatchObject({ reason: 'ApprovalExpired', revision: expect.any(String) });
    expect(state?.message).toMatch(/^approval expired at .* \(expiry 4s\): the held sync was dropped/);
    // Dropped on time: within a few seconds of the expiry, not at the next periodic resync.
    expect(Date.parse(state?.finishedAt ?? '') - Date.parse(state?.initiatedAt ?? '')).toBeLessThan(15_000);
    const events = await eventsOnceReported(org.orgNs, 'expappr', 'ApprovalExpired');
    expect(events.find((e) => e.reason === 'ApprovalExpired')?.message).toMatch(/expiry 4s/);
    // Nothing held any more: the approval given does not count, and a later one is refused.
    expect((await call(alice, 'GET', `${path}/approvals`)).body).toMatchObject({ held: false, approved_by: [] });
    expect((await call(carol, 'POST', `${path}/approve`)).status).toBe(409);
    expect((await getApp(org.orgNs, 'expappr'))?.status?.revision ?? '').toBe('');
    // The CLI shows the dropped sync and why.
    await org.api.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => undefined);
    const base = `http://127.0.0.1:${(org.api.app.server.address() as AddressInfo).port}`;
    const { key } = await mintKey(org.api, { cookie: alice.cookie }, { role: 'read' });
    const env = { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', SVC_SERVER: base, SVC_API_KEY: key };
    const shown = await runCli(['app', 'status', 'expappr', '-n', dest], env);
    expect(shown.stdout).toMatch(/Sync Failed \(ApprovalExpired\) approval expired at/);
  });

  it('applies the org policy to an App without its own; only org:manage sets it', async () => {
    const body = { policy: { roles: ['Owner'], expiry: '1h' } };
    expect((await call(alice, 'PUT', '/api/v1/approval-policy', body)).status).toBe(403);
    expect(await call(org.owner, 'PUT', '/api/v1/approval-policy', body)).toMatchObject({ status: 200, body });
    expect((await call(alice, 'GET', '/api/v1/approval-policy')).body).toEqual(body);
    expect((await call(org.owner, 'PUT', '/api/v1/approval-policy', { policy: { roles: ['Nobody'] } })).status).toBe(
      400,
    );
    const { path } = await gitApp('orgappr', { requiresApproval: true });
    const sync = await call(alice, 'POST', `${path}/sync`);
    await phaseOf('orgappr', sync.body['operation_id'], 'Held');
    const listed = await call(alice, 'GET', `${path}/approvals`);
    expect(listed.body).toMatchObject({ policy_source: 'org', roles: ['Owner'], expires_at: expect.any(String) });
    expect((await call(carol, 'POST', `${path}/approve`)).status).toBe(403);
    const ok = await call(org.owner, 'POST', `${path}/approve`);
    expect(ok.status).toBe(200);
    await phaseOf('orgappr', ok.body['operation_id'], 'Succeeded');
    expect(await auditEntries(org.api, org.owner, 'org.approval_policy', org.orgNs.slice(4))).toHaveLength(1);
    expect((await call(org.owner, 'PUT', '/api/v1/approval-policy', { policy: null })).body).toEqual({ policy: null });
  });

  it('refuses an approval past the org policy expiry (409)', async () => {
    // The org policy lives in the database, which the operator does not read: the API refuses the late approval.
    const set = await call(org.owner, 'PUT', '/api/v1/approval-policy', { policy: { expiry: '1ms' } });
    expect(set.status).toBe(200);
    try {
      const { path } = await gitApp('orgexp', { requiresApproval: true });
      const sync = await call(alice, 'POST', `${path}/sync`);
      await phaseOf('orgexp', sync.body['operation_id'], 'Held');
      const late = await call(carol, 'POST', `${path}/approve`);
      expect(late).toMatchObject({ status: 409, body: { error: expect.stringMatching(/held sync expired at .*1ms/) } });
      expect(await auditEntries(org.api, org.owner, 'app.approve', 'orgexp')).toEqual([]);
    } finally {
      await call(org.owner, 'PUT', '/api/v1/approval-policy', { policy: null });
    }
  });
});
