/**
 * One pending operation per App (contract §3, §8), through the API against the real operator: while an operation
 * is Running (kept Running by holding the git server's answers to the operator's fetch) or Held (for approval, or
 * by a freeze), a second request answers 409 and is not audited; the first reaches its final phase, which a status
 * `wait` started meanwhile returns; Approve is accepted exactly while a sync is held for approval, from another person
 * than the one who requested the sync.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer, waitUntil } from '../harness/index.ts';
import { auditEntries, type OrgApi, signUpMember, startOrgApi, type TestUser } from './api-support.ts';
import {
  configMapYaml,
  deleteNamespaces,
  startTestOperator,
  type TestOperator,
  unique,
  waitForApp,
} from './operator-support.ts';

type Json = Record<string, unknown>;

describe('one pending operation per App, with the real operator', () => {
  let org: OrgApi;
  let git: GitServer;
  let op: TestOperator;
  const dests: string[] = [];

  beforeAll(async () => {
    git = await startGitServer();
    org = await startOrgApi('oneop');
    op = await startTestOperator(org.orgNs);
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    await deleteNamespaces(org.orgNs, ...dests);
  });

  /** Creates a Git App through the API and waits for the operator's first report on it; returns its path. */
  async function gitApp(name: string, extra: Json = {}): Promise<{ path: string; head: string }> {
    const repo = await git.createRepo(unique(name), { 'm/a.yaml': configMapYaml('a') });
    const dest = unique('dest');
    dests.push(dest);
    const res = await org.api.call('POST', '/api/v1/apps', {
      cookie: org.owner.cookie,
      body: { name, namespace: dest, source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } }, ...extra },
    });
    expect(res.status).toBe(201);
    const head = await repo.head();
    await waitForApp(org.orgNs, name, 'first report', (a) => a.status?.observedRevision === head);
    return { path: `/api/v1/apps/${dest}/${name}`, head };
  }

  const post = (path: string) => org.api.call<Json>('POST', path, { cookie: org.owner.cookie });
  const phaseOf = (name: string, id: unknown, phase: string) =>
    waitForApp(org.orgNs, name, `${phase} ${String(id)}`, (a) => {
      const s = a.status?.operationState;
      return s !== undefined && s.id === id && s.phase === phase;
    });

  it('a second sync while the first is Running answers 409; the first reaches a final phase', async () => {
    const { path, head } = await gitApp('running');
    const hold = git.hold();
    let waiting: Promise<{ status: number; body: Json }> | undefined;
    try {
      const first = await post(`${path}/sync`);
      expect(first.status).toBe(200);
      const id = first.body['operation_id'];
      await phaseOf('running', id, 'Running');
      // The operator's fetch for the operation has reached the git server and waits there.
      await waitUntil(async () => hold.waiting() > 0 || undefined, { what: 'the held fetch' });

      for (const route of ['sync', 'restart', 'deploy', 'approve']) {
        const again = await post(`${path}/${route}`);
        expect(again.status, route).toBe(409);
        expect(again.body['error'], route).toMatch(route === 'approve' ? /running/ : /pending Sync operation.*running/);
      }
      waiting = org.api.call<Json>('GET', `${path}/status?wait=60s`, { cookie: org.owner.cookie });
    } finally {
      hold.release();
    }
    const done = await waiting;
    expect(done?.status).toBe(200);
    expect(done?.body).toMatchObject({
      sync_status: 'Synced',
      health: 'Healthy',
      revision: head,
      operationState: { kind: 'Sync', phase: 'Succeeded' },
      pending_operation: null,
    });
    expect(await auditEntries(org.api, org.owner, 'app.sync', 'running')).toHaveLength(1);
    expect(await auditEntries(org.api, org.owner, 'app.restart', 'running')).toHaveLength(0);
    // Once the first has ended, the next is accepted.
    expect((await post(`${path}/sync`)).status).toBe(200);
  });

  it('a sync held for approval refuses other operations (409) and accepts Approve, which applies the staged revision', async () => {
    const { path, head } = await gitApp('approval', { sync_policy: { requiresApproval: true } });
    expect((await post(`${path}/approve`)).status).toBe(409);
    const sync = await post(`${path}/sync`);
    await phaseOf('approval', sync.body['operation_id'], 'Held');
    for (const route of ['sync', 'restart']) {
      const again = await post(`${path}/${route}`);
      expect(again, route).toMatchObject({ status: 409, body: { error: expect.stringMatching(/held for approval/) } });
    }
    // The requester may not approve its own sync (approval policies, issue 30); another member does.
    expect((await post(`${path}/approve`)).status).toBe(403);
    const approver: TestUser = await signUpMember(org.api, org.owner, org.orgId, 'approver', 'contributor');
    const approve = await org.api.call<Json>('POST', `${path}/approve`, { cookie: approver.cookie });
    expect(approve).toMatchObject({ status: 200, body: { revision: head } });
    const done = await phaseOf('approval', approve.body['operation_id'], 'Succeeded');
    expect(done.status?.revision).toBe(head);
    expect((await post(`${path}/approve`)).status).toBe(409);
  });

  it('a sync held by a freeze refuses others (409) and runs on unfreeze', async () => {
    const { path, head } = await gitApp('frozen');
    expect((await post(`${path}/freeze`)).status).toBe(200);
    const sync = await post(`${path}/sync`);
    await phaseOf('frozen', sync.body['operation_id'], 'Held');
    expect((await post(`${path}/sync`)).status).toBe(409);
    expect((await post(`${path}/approve`)).status).toBe(409);
    expect((await post(`${path}/unfreeze`)).status).toBe(200);
    const done = await phaseOf('frozen', sync.body['operation_id'], 'Succeeded');
    expect(done.status?.revision).toBe(head);
  });
});
