import { describe, expect, it } from 'vitest';
import { BLOCKED_MESSAGE } from '../../src/core/app-state.ts';
import {
  configMapYaml,
  deploymentYaml,
  getObject,
  patchSpec,
  requestOperation,
  stuckDeploymentYaml,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-deps');
const { org } = suite;

describe('dependencies between Apps (spec.dependsOn)', () => {
  it('a chain of three waits for its Degraded middle App, tells why, and syncs once it is Healthy', async () => {
    const dbRepo = await suite.git.createRepo(unique('db'), { 'm/db.yaml': deploymentYaml('db') });
    const apiRepo = await suite.git.createRepo(unique('api'), { 'm/api.yaml': stuckDeploymentYaml('api') });
    const webRepo = await suite.git.createRepo(unique('web'), { 'm/web.yaml': configMapYaml('web') });
    const automated = { syncPolicy: { automated: true } };
    // Created last-first: each waits for an App that does not exist yet.
    const webDest = await suite.gitApp('web', webRepo, { ...automated, dependsOn: [{ name: 'api' }] });
    await waitForApp(org, 'web', 'blocked by a missing api', (a) =>
      (a.status?.blockedBy ?? []).some((b) => b.app === 'api' && b.reason === 'not found'),
    );
    await suite.gitApp('api', apiRepo, { ...automated, dependsOn: [{ name: 'db' }] });
    await suite.gitApp('db', dbRepo, automated);

    await waitForApp(org, 'db', 'db Synced and Healthy', (a) => a.status?.healthStatus === 'Healthy');
    const api = await waitForApp(org, 'api', 'api Degraded', (a) => a.status?.healthStatus === 'Degraded');
    expect(api.status?.blockedBy).toBeUndefined();
    expect(api.status?.syncStatus).toBe('Synced');

    const web = await waitForApp(org, 'web', 'web blocked by a Degraded api', (a) =>
      (a.status?.blockedBy ?? []).some((b) => b.app === 'api' && b.reason.startsWith('Degraded')),
    );
    expect(web.status?.blockedBy).toEqual([{ app: 'api', reason: expect.stringMatching(/^Degraded: .*api/) }]);
    expect(web.status?.revision).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', webDest, 'web')).toBeUndefined();

    // A requested sync waits too, Held with the reason, and runs once the dependency is ready.
    const id = await requestOperation(org, 'web', 'Sync');
    const held = await waitForApp(org, 'web', 'held sync', (a) => a.status?.operationState?.id === id);
    expect(held.status?.operationState).toMatchObject({ phase: 'Held', message: BLOCKED_MESSAGE });

    await apiRepo.commit({ 'm/api.yaml': deploymentYaml('api') }, 'healthy api');
    await waitForApp(org, 'api', 'api Healthy', (a) => a.status?.healthStatus === 'Healthy', 90_000);
    const synced = await waitForApp(
      org,
      'web',
      'web synced',
      (a) => a.status?.operationState?.id === id && a.status.operationState.phase === 'Succeeded',
    );
    expect(synced.status?.blockedBy).toBeUndefined();
    expect(synced.status?.syncStatus).toBe('Synced');
    expect(await getObject('v1', 'ConfigMap', webDest, 'web')).toBeDefined();
  });

  it('a cycle made behind svc stalls the Apps in it, naming it; breaking it releases both', async () => {
    const repo = await suite.git.createRepo(unique('cyc'), { 'm/c.yaml': configMapYaml('c') });
    const automated = { syncPolicy: { automated: true } };
    await suite.gitApp('cyc-a', repo, { ...automated, dependsOn: [{ name: 'cyc-b' }] });
    await suite.gitApp('cyc-b', repo, { ...automated, dependsOn: [{ name: 'cyc-a' }] });
    for (const [name, cycle] of [
      ['cyc-a', 'cyc-a → cyc-b → cyc-a'],
      ['cyc-b', 'cyc-b → cyc-a → cyc-b'],
    ] as const) {
      const stalled = await waitForApp(org, name, 'stalled', (a) =>
        (a.status?.conditions ?? []).some((c) => c.type === 'Stalled' && c.status === 'True'),
      );
      const condition = stalled.status?.conditions?.find((c) => c.type === 'Stalled');
      expect(condition).toMatchObject({ reason: 'DependenciesFailed' });
      expect(condition?.message).toContain(`dependency cycle: ${cycle}`);
    }

    await patchSpec(org, 'cyc-b', { dependsOn: null });
    await waitForApp(org, 'cyc-b', 'b synced', (a) => a.status?.syncStatus === 'Synced');
    // a was stalled; b's change re-queues it and, the cycle gone, it syncs once b is ready.
    const a = await waitForApp(org, 'cyc-a', 'a synced', (x) => x.status?.syncStatus === 'Synced');
    expect(a.status?.conditions?.some((c) => c.type === 'Stalled')).toBe(false);
    expect(a.status?.blockedBy).toBeUndefined();
  });
});
