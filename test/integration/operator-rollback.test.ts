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

const suite = useOperatorSuite('org-rollback');
const { org } = suite;

describe('rollback', () => {
  it('applies the old revision, records operationState, prunes what the newer one added; automated returns to head', async () => {
    const repo = await suite.git.createRepo(unique('rb'), { 'm/a.yaml': configMapYaml('a', { v: '1' }) });
    const c1 = await repo.head();
    const c2 = await repo.commit({ 'm/a.yaml': configMapYaml('a', { v: '2' }), 'm/b.yaml': configMapYaml('b') }, 'v2');
    const dest = await suite.gitApp('rb', repo, { syncPolicy: { prune: true } });
    const sync = await requestOperation(org, 'rb', 'Sync');
    await waitForApp(org, 'rb', 'sync to c2', (a) => a.status?.operationState?.id === sync && a.status.revision === c2);
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeDefined();

    const id = await requestOperation(org, 'rb', 'Rollback', c1);
    const app = await waitForApp(
      org,
      'rb',
      'rollback',
      (a) => a.status?.operationState?.id === id && a.status.operationState.phase === 'Succeeded',
    );
    expect(app.status?.operationState).toMatchObject({ kind: 'Rollback', id, phase: 'Succeeded', revision: c1 });
    expect(app.status?.revision).toBe(c1);
    expect(app.status?.observedRevision).toBe(c2);
    expect(app.status?.syncStatus).toBe('OutOfSync');
    expect(app.status?.previousRevisions?.[0]).toBe(c2);
    expect((await getObject('v1', 'ConfigMap', dest, 'a'))?.['data']).toEqual({ v: '1' });
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeUndefined();

    await patchSpec(org, 'rb', { syncPolicy: { automated: true, prune: true } });
    await waitForApp(
      org,
      'rb',
      'automated back to head',
      (a) => a.status?.revision === c2 && a.status.syncStatus === 'Synced',
    );
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeDefined();
  });

  it('a rollback to an unknown revision fails the operation and changes nothing', async () => {
    const repo = await suite.git.createRepo(unique('rbbad'), { 'm/a.yaml': configMapYaml('a') });
    const c1 = await repo.head();
    await suite.gitApp('rbbad', repo, { syncPolicy: { automated: true } });
    await waitForApp(org, 'rbbad', 'first sync', (a) => a.status?.revision === c1);
    const id = await requestOperation(org, 'rbbad', 'Rollback', 'f'.repeat(40));
    const app = await waitForApp(
      org,
      'rbbad',
      'failed rollback',
      (a) => a.status?.operationState?.id === id && a.status.operationState.phase === 'Failed',
    );
    expect(app.status?.operationState?.message).toMatch(/not found/);
    expect(app.status?.revision).toBe(c1);
  });
});
