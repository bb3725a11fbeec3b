/**
 * Rollbacks that hold (issue 30, item 2), through the API against the real operator and git server.
 *
 * - A rollback that holds nothing stands until the next periodic resync (contract §3 rule 3), not until whatever
 *   reconcile comes first: with a long sync period, a change of a live object wakes a reconcile at once, and the App
 *   stays at the rolled-back revision, the object the newer commit pruned still there. (Before the fix, that
 *   reconcile saw revision ≠ head and synced straight back.)
 * - `POST .../rollback` with `hold` pins an automated, prune-enabled App at the revision: a new commit with a sync
 *   request and automated resyncs do not move it; `held_at` and status.heldAt say who and why; a rollback without
 *   hold is refused meanwhile (409); `POST .../release` (audited app.release; 409 when nothing is held) lets it
 *   move to the head.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { type GitServer, startGitServer, waitUntil } from '../harness/index.ts';
import { auditEntries, type OrgApi, startOrgApi } from './api-support.ts';
import {
  configMapYaml,
  deleteNamespaces,
  getObject,
  kube,
  startTestOperator,
  type TestOperator,
  unique,
  waitForApp,
} from './operator-support.ts';

type Json = Record<string, unknown>;

/** The App's status shows ConfigMap `a` Missing (a reconcile after its deletion ran and did not re-apply it). */
const aMissing = (a: AppResource): boolean =>
  (a.status?.resources ?? []).some((r) => r.name === 'a' && r.healthStatus === 'Missing');

describe('rollback that holds, with the real operator', () => {
  let org: OrgApi;
  let git: GitServer;
  let op: TestOperator;
  const dests: string[] = [];

  beforeAll(async () => {
    git = await startGitServer();
    org = await startOrgApi('hold');
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    await deleteNamespaces(org.orgNs, ...dests);
  });

  const post = (path: string, body: Json = {}) => org.api.call<Json>('POST', path, { cookie: org.owner.cookie, body });

  /** An automated, prune-enabled App that applied c1 (`a`), then c2 (adds `b`); its API path and destination. */
  async function appAtC2(name: string) {
    const repo = await git.createRepo(unique(name), { 'm/a.yaml': configMapYaml('a', { v: '1' }) });
    const c1 = await repo.head();
    const dest = unique('dest');
    dests.push(dest);
    const created = await post('/api/v1/apps', {
      name,
      namespace: dest,
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      sync_policy: { automated: true, prune: true },
    });
    expect(created.status).toBe(201);
    await waitForApp(org.orgNs, name, 'synced to c1', (a) => a.status?.revision === c1);
    const c2 = await repo.commit({ 'm/a.yaml': configMapYaml('a', { v: '2' }), 'm/b.yaml': configMapYaml('b') }, 'v2');
    const path = `/api/v1/apps/${dest}/${name}`;
    expect((await post(`${path}/sync`)).status).toBe(200);
    await waitForApp(org.orgNs, name, 'synced to c2', (a) => a.status?.revision === c2);
    return { repo, c1, c2, dest, path };
  }

  it('a rollback without hold stands until the next periodic resync, not the next reconcile a live change wakes', async () => {
    op = await startTestOperator(org.orgNs, { tuning: { syncPeriodMs: 10 * 60_000 } });
    const { c1, dest, path } = await appAtC2('stand');
    const rb = await post(`${path}/rollback`, { revision: c1 });
    expect(rb.status).toBe(200);
    await waitForApp(
      org.orgNs,
      'stand',
      'rolled back',
      (a) =>
        a.status?.operationState?.id === rb.body['operation_id'] && a.status?.operationState?.phase === 'Succeeded',
    );
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeUndefined();
    // A live change wakes a reconcile at once: it sees `a` gone (Missing)...
    await kube().delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: dest, name: 'a' });
    const after = await waitForApp(org.orgNs, 'stand', 'the reconcile the live change woke', aMissing);
    // ...and leaves the rollback standing: still c1, `b` still pruned, `a` not re-applied by an automated sync.
    expect(after.status?.revision).toBe(c1);
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'a')).toBeUndefined();
    await op.stop();
  });

  it('a held rollback survives a push with a sync request and automated resyncs; release moves it to head', async () => {
    op = await startTestOperator(org.orgNs);
    const { repo, c1, c2, dest, path } = await appAtC2('held');
    expect((await post(`${path}/release`)).status).toBe(409);

    const rb = await post(`${path}/rollback`, { revision: c1, hold: true, reason: 'v2 breaks checkout' });
    expect(rb).toMatchObject({ status: 200, body: { revision: c1, operation_id: expect.any(String) } });
    const held = await waitForApp(
      org.orgNs,
      'held',
      'held at c1',
      (a) =>
        a.status?.operationState?.id === rb.body['operation_id'] &&
        a.status?.operationState?.phase === 'Succeeded' &&
        a.status?.heldAt?.revision === c1,
    );
    expect(held.status?.heldAt).toMatchObject({ revision: c1, reason: 'v2 breaks checkout', by: org.owner.email });
    const view = await org.api.call<Json>('GET', `${path}/status`, { cookie: org.owner.cookie });
    expect(view.body['held_at']).toMatchObject({ revision: c1, reason: 'v2 breaks checkout' });
    const [audit] = await auditEntries(org.api, org.owner, 'app.rollback', 'held');
    expect(audit?.['details']).toMatchObject({ revision: c1, hold: true, reason: 'v2 breaks checkout' });

    // A push: a new commit and a sync request. The sync applies the held revision; automated resyncs see the new
    // head (observedRevision) and stay.
    const c3 = await repo.commit({ 'm/c.yaml': configMapYaml('c') }, 'v3');
    const sync = await post(`${path}/sync`);
    expect(sync.status).toBe(200);
    const synced = await waitForApp(
      org.orgNs,
      'held',
      'the sync request done',
      (a) =>
        a.status?.operationState?.id === sync.body['operation_id'] && a.status?.operationState?.phase === 'Succeeded',
    );
    expect(synced.status?.operationState?.revision).toBe(c1);
    const lastSync = synced.status?.lastSyncAt;
    // Past a sync period (2 s for the test operator: automated resyncs ran), a live change wakes one more reconcile:
    // `a` deleted shows Missing, and nothing moved the App.
    const syncedAt = Date.parse(synced.status?.operationState?.finishedAt ?? '');
    await waitUntil(async () => (Date.now() > syncedAt + 2500 ? true : undefined), { what: 'a sync period passed' });
    await kube().delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: dest, name: 'a' });
    const resynced = await waitForApp(org.orgNs, 'held', 'the reconcile the live change woke', aMissing);
    expect(resynced.status?.observedRevision).toBe(c3);
    expect(resynced.status?.revision).toBe(c1);
    expect(resynced.status?.lastSyncAt).toBe(lastSync);
    expect(resynced.status?.syncStatus).toBe('OutOfSync');
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'c')).toBeUndefined();
    // A rollback that does not hold is refused while held.
    expect((await post(`${path}/rollback`, { revision: c2 })).status).toBe(409);

    const released = await post(`${path}/release`);
    expect(released).toMatchObject({ status: 200, body: { revision: c1, name: 'held' } });
    const [rel] = await auditEntries(org.api, org.owner, 'app.release', 'held');
    expect(rel?.['details']).toMatchObject({ revision: c1 });
    const moved = await waitForApp(
      org.orgNs,
      'held',
      'at head after release',
      (a) => a.status?.revision === c3 && a.status?.syncStatus === 'Synced',
    );
    expect(moved.status?.heldAt).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'c')).toBeDefined();
    expect((await post(`${path}/release`)).status).toBe(409);
  });
});
