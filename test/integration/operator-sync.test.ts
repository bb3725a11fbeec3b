import { describe, expect, it } from 'vitest';
import {
  configMapYaml,
  getApp,
  getObject,
  requestOperation,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-sync');
const { org } = suite;

describe('automated and manual sync', () => {
  it('automated: a new commit is applied on the next reconcile', async () => {
    const repo = await suite.git.createRepo(unique('auto'), { 'm/a.yaml': configMapYaml('a') });
    const c1 = await repo.head();
    const dest = await suite.gitApp('auto', repo, { syncPolicy: { automated: true } });
    await waitForApp(org, 'auto', 'first sync', (a) => a.status?.revision === c1);
    const c2 = await repo.commit({ 'm/b.yaml': configMapYaml('b') }, 'add b');
    const app = await waitForApp(
      org,
      'auto',
      'second sync',
      (a) => a.status?.revision === c2 && a.status.syncStatus === 'Synced',
    );
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeDefined();
    expect(app.status?.previousRevisions).toEqual([c1]);
    expect(app.status?.lastSyncAt).toBeDefined();
  });

  it('manual: OutOfSync until a Sync operation, which is recorded in operationState', async () => {
    const repo = await suite.git.createRepo(unique('manual'), { 'm/a.yaml': configMapYaml('a') });
    const c1 = await repo.head();
    const dest = await suite.gitApp('manual', repo);
    const seen = await waitForApp(org, 'manual', 'observed', (a) => a.status?.observedRevision === c1);
    expect(seen.status?.syncStatus).toBe('OutOfSync');
    expect(seen.status?.revision).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'a')).toBeUndefined();

    const id = await requestOperation(org, 'manual', 'Sync');
    const synced = await waitForApp(
      org,
      'manual',
      'sync op',
      (a) => a.status?.operationState?.id === id && a.status.operationState.phase === 'Succeeded',
    );
    expect(synced.status?.revision).toBe(c1);
    expect(synced.status?.syncStatus).toBe('Synced');
    expect(synced.status?.operationState).toMatchObject({ kind: 'Sync', id, phase: 'Succeeded', revision: c1 });
    expect(synced.status?.operationState?.finishedAt).toBeDefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'a')).toBeDefined();

    const c2 = await repo.commit({ 'm/a.yaml': configMapYaml('a', { k: 'changed' }) }, 'change a');
    const behind = await waitForApp(org, 'manual', 'new head observed', (a) => a.status?.observedRevision === c2);
    expect(behind.status?.syncStatus).toBe('OutOfSync');
    expect(behind.status?.revision).toBe(c1);
    expect((await getObject('v1', 'ConfigMap', dest, 'a'))?.['data']).toEqual({ k: 'v' });

    const id2 = await requestOperation(org, 'manual', 'Sync');
    await waitForApp(
      org,
      'manual',
      'second sync op',
      (a) => a.status?.operationState?.id === id2 && a.status.revision === c2,
    );
    expect((await getObject('v1', 'ConfigMap', dest, 'a'))?.['data']).toEqual({ k: 'changed' });
    expect((await getApp(org, 'manual'))?.status?.syncStatus).toBe('Synced');
  });
});
