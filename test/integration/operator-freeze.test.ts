import { describe, expect, it } from 'vitest';
import {
  configMapYaml,
  getObject,
  patchSpec,
  requestOperation,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-freeze');
const { org } = suite;

describe('freeze and approval', () => {
  it('freeze holds automated and manual syncs while health still reconciles; unfreeze releases them', async () => {
    const repo = await suite.git.createRepo(unique('frz'), { 'm/a.yaml': configMapYaml('a', { v: '1' }) });
    const c1 = await repo.head();
    const dest = await suite.gitApp('frz', repo, { syncPolicy: { automated: true } });
    await waitForApp(org, 'frz', 'first sync', (a) => a.status?.revision === c1);
    await patchSpec(org, 'frz', { freeze: true });
    const c2 = await repo.commit({ 'm/a.yaml': configMapYaml('a', { v: '2' }) }, 'v2');
    const held = await waitForApp(org, 'frz', 'new head seen', (a) => a.status?.observedRevision === c2);
    expect(held.status?.revision).toBe(c1);
    expect(held.status?.syncStatus).toBe('OutOfSync');
    expect(held.status?.healthStatus).toBe('Healthy');

    const id = await requestOperation(org, 'frz', 'Sync');
    const frozen = await waitForApp(org, 'frz', 'held sync', (a) => a.status?.operationState?.id === id);
    expect(frozen.status?.operationState).toMatchObject({ kind: 'Sync', phase: 'Held' });
    expect(frozen.status?.operationState?.message).toMatch(/frozen/);
    expect(frozen.status?.revision).toBe(c1);
    expect((await getObject('v1', 'ConfigMap', dest, 'a'))?.['data']).toEqual({ v: '1' });

    await patchSpec(org, 'frz', { freeze: false });
    const released = await waitForApp(
      org,
      'frz',
      'released sync',
      (a) => a.status?.operationState?.id === id && a.status.operationState.phase === 'Succeeded',
    );
    expect(released.status?.revision).toBe(c2);
    expect((await getObject('v1', 'ConfigMap', dest, 'a'))?.['data']).toEqual({ v: '2' });
  });

  it('requiresApproval stages a sync as Held; Approve applies the staged revision', async () => {
    const repo = await suite.git.createRepo(unique('appr'), { 'm/a.yaml': configMapYaml('a', { v: '1' }) });
    const c1 = await repo.head();
    const dest = await suite.gitApp('appr', repo, { syncPolicy: { requiresApproval: true } });
    const id = await requestOperation(org, 'appr', 'Sync');
    const held = await waitForApp(org, 'appr', 'held', (a) => a.status?.operationState?.id === id);
    expect(held.status?.operationState).toMatchObject({ kind: 'Sync', phase: 'Held', revision: c1 });
    expect(held.status?.revision).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'a')).toBeUndefined();
    // A newer commit after staging: Approve still applies what was staged.
    await repo.commit({ 'm/a.yaml': configMapYaml('a', { v: '2' }) }, 'v2');

    const approve = await requestOperation(org, 'appr', 'Approve');
    const done = await waitForApp(
      org,
      'appr',
      'approved',
      (a) => a.status?.operationState?.id === approve && a.status.operationState.phase === 'Succeeded',
    );
    expect(done.status?.operationState).toMatchObject({ kind: 'Approve', revision: c1 });
    expect(done.status?.revision).toBe(c1);
    expect((await getObject('v1', 'ConfigMap', dest, 'a'))?.['data']).toEqual({ v: '1' });
  });

  it('automated with requiresApproval stages upstream changes instead of applying them', async () => {
    const repo = await suite.git.createRepo(unique('autoappr'), { 'm/a.yaml': configMapYaml('a') });
    const c1 = await repo.head();
    const dest = await suite.gitApp('autoappr', repo, { syncPolicy: { automated: true, requiresApproval: true } });
    const held = await waitForApp(org, 'autoappr', 'staged', (a) => a.status?.operationState?.phase === 'Held');
    expect(held.status?.operationState?.revision).toBe(c1);
    expect(await getObject('v1', 'ConfigMap', dest, 'a')).toBeUndefined();
    await requestOperation(org, 'autoappr', 'Approve');
    await waitForApp(org, 'autoappr', 'approved', (a) => a.status?.revision === c1 && a.status.syncStatus === 'Synced');
  });
});
