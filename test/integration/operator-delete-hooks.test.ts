/**
 * PostDelete hooks and prune order (issue 25) on the real test plane: a PostDelete Job run by kube-controller-manager's
 * Job controller and completed by kwok runs only once the deleted App's objects are gone, and the App is released
 * after it; a failed PostDelete hook holds the App with a condition saying why. Prune deletes wave by wave, each wave
 * gone before the next: an object of the higher wave held by a finalizer (which the test removes) holds the lower one.
 */
import { describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND } from '../../src/core/app-schema.ts';
import { waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  eventsAbout,
  eventsOnceReported,
  getApp,
  getObject,
  kube,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-delhooks', { tuning: { deleteTimeoutMs: 20_000, errorRequeueMs: 2_000 } });
const { org } = suite;

const HOLD = 'svc.test/hold';

/** A ConfigMap that its own finalizer keeps, once deleted, until the test releases it. */
const heldConfigMap = (name: string, wave = '0') => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  annotations: {cd.svc.space/sync-wave: "${wave}"}
  finalizers: [${HOLD}]
data: {k: v}
`;

/** A Job hook; `failing`: its Pod can never be scheduled and its 1 s deadline passes (the Job fails). */
const jobYaml = (name: string, annotations: Record<string, string>, failing = false) => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  annotations: ${JSON.stringify(annotations)}
spec:
  backoffLimit: 0
${failing ? '  activeDeadlineSeconds: 1\n' : ''}  template:
    spec:
      restartPolicy: Never
${failing ? '      nodeSelector: {nowhere: "true"}\n' : ''}      containers:
      - name: main
        image: cleanup:1.0
`;

const deleteApp = (name: string) =>
  kube().delete({ apiVersion: APP_API_VERSION, kind: APP_KIND, name, namespace: org });
const release = (dest: string, name: string) =>
  kube().mergePatch({ apiVersion: 'v1', kind: 'ConfigMap', name, namespace: dest }, { metadata: { finalizers: null } });
const terminating = (dest: string, name: string) =>
  waitUntil(async () => Boolean((await getObject('v1', 'ConfigMap', dest, name))?.metadata['deletionTimestamp']), {
    what: `ConfigMap ${name} being deleted`,
    timeoutMs: 30_000,
  });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostDelete hooks', () => {
  it("run once the App's objects are gone; the App is released after they succeeded", async () => {
    const repo = await suite.git.createRepo(unique('postdel'), {
      'm/held.yaml': heldConfigMap('held'),
      'm/plain.yaml': configMapYaml('plain'),
      'm/cleanup.yaml': jobYaml('cleanup', { 'argocd.argoproj.io/hook': 'PostDelete' }),
    });
    const dest = await suite.gitApp('postdel', repo, { syncPolicy: { automated: true } });
    await waitForApp(org, 'postdel', 'synced', (a) => a.status?.syncStatus === 'Synced', 60_000);
    // A sync never runs a PostDelete hook.
    expect(await getObject('batch/v1', 'Job', dest, 'cleanup')).toBeUndefined();

    await deleteApp('postdel');
    await terminating(dest, 'held');
    // While an object of the App is still there, the hook waits and the App stays.
    await pause(3000);
    expect(await getObject('batch/v1', 'Job', dest, 'cleanup')).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'plain')).toBeUndefined();
    expect(await getApp(org, 'postdel')).toBeDefined();

    const releasedAt = Date.now();
    await release(dest, 'held');
    await waitUntil(async () => (await getApp(org, 'postdel')) === undefined, {
      what: 'the App released after its PostDelete hook',
      timeoutMs: 60_000,
    });
    // The hook ran to completion (BeforeHookCreation, the default, leaves it there), created after the release.
    const job = await getObject('batch/v1', 'Job', dest, 'cleanup');
    const seen = async () => JSON.stringify({ job, events: await eventsAbout(org, 'postdel') });
    expect((job?.['status'] as { succeeded?: number })?.succeeded, await seen()).toBe(1);
    expect(Date.parse(String(job?.metadata['creationTimestamp']))).toBeGreaterThanOrEqual(
      Math.floor(releasedAt / 1000) * 1000,
    );
    const events = await eventsOnceReported(org, 'postdel', 'HookSucceeded');
    expect(events.find((e) => e.reason === 'HookSucceeded')?.message).toBe('PostDelete Job cleanup succeeded');
  });

  it('a failed PostDelete hook holds the App with a condition saying why, until the delete timeout gives up', async () => {
    const repo = await suite.git.createRepo(unique('postfail'), {
      'm/plain.yaml': configMapYaml('plain'),
      'm/cleanup.yaml': jobYaml(
        'cleanup',
        { 'cd.svc.space/hook': 'PostDelete', 'cd.svc.space/hook-delete-policy': 'HookSucceeded' },
        true,
      ),
    });
    await suite.gitApp('postfail', repo, { syncPolicy: { automated: true } });
    await waitForApp(org, 'postfail', 'synced', (a) => a.status?.syncStatus === 'Synced', 60_000);
    await deleteApp('postfail');
    const held = await waitForApp(
      org,
      'postfail',
      'the deletion held by the failed hook',
      (a) => a.status?.conditions?.some((c) => c.type === 'SyncError' && c.reason === 'PostDeleteHookFailed') === true,
      60_000,
    );
    const condition = held.status?.conditions?.find((c) => c.type === 'SyncError');
    expect(condition?.status).toBe('True');
    expect(condition?.message).toMatch(/PostDelete Job cleanup failed: .*DeadlineExceeded/);
    expect(held.metadata.finalizers).toContain('cd.svc.space/resources');
    const failed = await eventsOnceReported(org, 'postfail', 'HookFailed');
    expect(failed.find((e) => e.reason === 'HookFailed')?.type).toBe('Warning');
    // svc does not wedge a deletion forever: past the delete timeout the App is released (DeleteAbandoned).
    await waitUntil(async () => (await getApp(org, 'postfail')) === undefined, {
      what: 'the App released at the delete timeout',
      timeoutMs: 60_000,
    });
    const abandoned = await eventsOnceReported(org, 'postfail', 'DeleteAbandoned');
    expect(abandoned.some((e) => e.reason === 'DeleteAbandoned')).toBe(true);
  });
});

describe('prune between waves', () => {
  it('deletes the higher wave first and the lower wave only once the higher is gone', async () => {
    const repo = await suite.git.createRepo(unique('prune'), {
      'm/keep.yaml': configMapYaml('keep'),
      'm/low.yaml': configMapYaml('low'),
      'm/high.yaml': heldConfigMap('high', '1'),
    });
    const dest = await suite.gitApp('prune', repo, { syncPolicy: { automated: true, prune: true } });
    await waitForApp(org, 'prune', 'synced', (a) => a.status?.syncStatus === 'Synced', 60_000);
    expect(await getObject('v1', 'ConfigMap', dest, 'high')).toBeDefined();

    const next = await repo.commit({ 'm/low.yaml': null, 'm/high.yaml': null }, 'drop low and high');
    await terminating(dest, 'high');
    await pause(3000);
    // The lower wave waits while the higher one is still there.
    expect(await getObject('v1', 'ConfigMap', dest, 'low')).toBeDefined();
    await release(dest, 'high');
    await waitUntil(async () => (await getObject('v1', 'ConfigMap', dest, 'low')) === undefined, {
      what: 'the lower wave pruned once the higher is gone',
      timeoutMs: 30_000,
    });
    const app = await waitForApp(org, 'prune', 'synced at the new revision', (a) => a.status?.revision === next);
    expect((app.status?.inventory ?? []).map((e) => e.id.split('_')[1])).toEqual(['keep']);
  });
});
