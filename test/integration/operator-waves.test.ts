/**
 * Sync waves and hooks (issue 25, item 4) on the real test plane: Jobs run by kube-controller-manager's Job
 * controller, their Pods run to completion by kwok (pod-complete stage), so a hook Job completes the way it would on
 * a cluster; a hook Job that fails does so for a real reason (its Pod can never be scheduled and its
 * activeDeadlineSeconds passes: the Job controller marks it Failed, DeadlineExceeded). The order of what svc did is
 * read from the Events it records on the App (microsecond eventTime) and from the objects' own timestamps.
 */
import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { waitUntil } from '../harness/index.ts';
import {
  type CoreEvent,
  configMapYaml,
  deploymentYaml,
  eventsAbout,
  eventsOnceReported,
  getObject,
  requestOperation,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-waves');
const { org } = suite;

/** A Job manifest with `annotations`; `failing`: its Pod can never be scheduled and its 1 s deadline passes. */
function jobYaml(name: string, annotations: Record<string, string>, failing = false): string {
  const notes = Object.entries(annotations)
    .map(([k, v]) => `    ${k}: ${JSON.stringify(v)}\n`)
    .join('');
  const stuck = failing ? '  activeDeadlineSeconds: 1\n' : '';
  const nowhere = failing ? '      nodeSelector: {nowhere: "true"}\n' : '';
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  annotations:
${notes}spec:
  backoffLimit: 0
${stuck}  template:
    spec:
      restartPolicy: Never
${nowhere}      containers:
      - name: main
        image: migrate:1.0
`;
}

/** `metadata.annotations` added to a manifest whose metadata holds only its name. */
const annotate = (yaml: string, annotations: Record<string, string>): string =>
  yaml.replace(
    /^metadata:\n {2}name: (.*)$/m,
    `metadata:\n  name: $1\n  annotations:\n${Object.entries(annotations)
      .map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`)
      .join('\n')}`,
  );

/** svc's Events on the App, oldest first (by their microsecond eventTime). */
async function timeline(app: string): Promise<CoreEvent[]> {
  const events = (await eventsAbout(org, app)).filter((e) => e.source.component === 'svc-operator');
  return events.sort((a, b) => Date.parse(a.eventTime ?? '') - Date.parse(b.eventTime ?? ''));
}

/**
 * The messages of the App's events with these reasons, oldest first, once there are `count` of them: the operator
 * records Events in the background, so the last may land after the status that ends the operation.
 */
async function stepsOnceReported(app: string, reasons: string[], count: number): Promise<string[]> {
  return waitUntil(
    async () => {
      const steps = (await timeline(app)).filter((e) => reasons.includes(e.reason)).map((e) => e.message);
      return steps.length >= count ? steps : undefined;
    },
    { what: `${count} ${reasons.join('/')} events about ${app}`, timeoutMs: 30_000 },
  );
}

const inventoryKinds = (app: AppResource) => (app.status?.inventory ?? []).map((e) => e.id.split('_').at(-1));
const operationEnded = (id: string) => (app: AppResource) =>
  app.status?.operationState?.id === id && ['Succeeded', 'Failed'].includes(app.status.operationState.phase);

describe('sync waves and hooks', () => {
  it('runs the PreSync migration Job to completion before wave -1, then wave 1 once wave -1 is healthy, then PostSync', async () => {
    const repo = await suite.git.createRepo(unique('waves'), {
      'm/migrate.yaml': jobYaml('migrate', { 'cd.svc.space/hook': 'PreSync' }),
      'm/settings.yaml': annotate(configMapYaml('settings'), { 'cd.svc.space/sync-wave': '-1' }),
      'm/web.yaml': annotate(deploymentYaml('web'), { 'cd.svc.space/sync-wave': '1' }),
      'm/smoke.yaml': jobYaml('smoke', {
        'cd.svc.space/hook': 'PostSync',
        'cd.svc.space/hook-delete-policy': 'HookSucceeded',
      }),
    });
    const dest = await suite.gitApp('waves', repo);
    const id = await requestOperation(org, 'waves', 'Sync');
    const app = await waitForApp(org, 'waves', 'the sync ended', operationEnded(id), 120_000);
    expect(app.status?.operationState?.phase, app.status?.operationState?.message).toBe('Succeeded');
    expect(app.status?.operationState?.message).toContain('wave -1: ConfigMap settings; wave 1: Deployment web');
    // What the operation did to each object, in order: the hooks with how they ended, the objects at their waves.
    const did = (app.status?.operationState?.resources ?? []).map(
      (r) => `${r.syncPhase} ${r.wave} ${r.kind} ${r.name} ${r.result}`,
    );
    expect(did).toEqual([
      'PreSync 0 Job migrate HookSucceeded',
      'Sync -1 ConfigMap settings Synced',
      'Sync 1 Deployment web Synced',
      'PostSync 0 Job smoke HookSucceeded',
    ]);
    expect(app.status?.operationState?.resources?.[1]).toMatchObject({ apiVersion: 'v1', namespace: dest });

    const steps = await stepsOnceReported('waves', ['HookSucceeded', 'HookFailed', 'WaveSynced'], 4);
    expect(steps).toEqual([
      'PreSync Job migrate succeeded',
      'wave -1: ConfigMap settings',
      'wave 1: Deployment web',
      'PostSync Job smoke succeeded',
    ]);
    // The migration completed before the Deployment existed (timestamps have whole seconds: not after).
    const migrate = await getObject('batch/v1', 'Job', dest, 'migrate');
    const web = await getObject('apps/v1', 'Deployment', dest, 'web');
    const completed = Date.parse(String((migrate?.['status'] as { completionTime?: string })?.completionTime));
    expect(completed).toBeLessThanOrEqual(Date.parse(String(web?.metadata['creationTimestamp'])));
    // HookSucceeded removed the smoke test; hooks are neither in the inventory nor among the App's resources.
    expect(await getObject('batch/v1', 'Job', dest, 'smoke')).toBeUndefined();
    expect(inventoryKinds(app).sort()).toEqual(['ConfigMap', 'Deployment']);
    expect(app.status?.resources?.map((r) => r.kind).sort()).toEqual(['ConfigMap', 'Deployment']);
    const settled = await waitForApp(org, 'waves', 'Synced', (a) => a.status?.syncStatus === 'Synced');
    expect(settled.status?.healthStatus).toBe('Healthy');

    // A second sync runs the migration again: BeforeHookCreation deleted the previous run first.
    const firstUid = migrate?.metadata.uid;
    const again = await requestOperation(org, 'waves', 'Sync');
    const second = await waitForApp(org, 'waves', 'the second sync ended', operationEnded(again), 120_000);
    expect(second.status?.operationState?.phase, second.status?.operationState?.message).toBe('Succeeded');
    const rerun = await getObject('batch/v1', 'Job', dest, 'migrate');
    expect(rerun?.metadata.uid).not.toBe(firstUid);
  });

  it('a failed PreSync hook fails the sync with nothing applied, and runs the SyncFail hook', async () => {
    const repo = await suite.git.createRepo(unique('fail'), {
      'm/migrate.yaml': jobYaml('migrate', { 'cd.svc.space/hook': 'PreSync' }, true),
      'm/web.yaml': deploymentYaml('web'),
      'm/settings.yaml': configMapYaml('settings'),
      'm/alert.yaml': annotate(configMapYaml('sync-failed', { why: 'migration' }), {
        'cd.svc.space/hook': 'SyncFail',
      }),
    });
    const dest = await suite.gitApp('fail', repo);
    const id = await requestOperation(org, 'fail', 'Sync');
    const app = await waitForApp(org, 'fail', 'the sync ended', operationEnded(id), 120_000);
    expect(app.status?.operationState).toMatchObject({ phase: 'Failed', reason: 'HookFailed' });
    expect(app.status?.operationState?.message).toMatch(/PreSync Job migrate failed: .*DeadlineExceeded/);
    // Nothing of the App was applied: the failed hook, with why, then the SyncFail hook that ran.
    expect(app.status?.operationState?.resources).toEqual([
      expect.objectContaining({ kind: 'Job', name: 'migrate', result: 'HookFailed', syncPhase: 'PreSync' }),
      expect.objectContaining({
        kind: 'ConfigMap',
        name: 'sync-failed',
        result: 'HookSucceeded',
        syncPhase: 'SyncFail',
      }),
    ]);
    expect(app.status?.operationState?.resources?.[0]?.message).toMatch(/DeadlineExceeded/);
    // operationState keeps why; the SyncError condition tells the latest reconcile only, and the reconcile that the
    // SyncFail hook's object wakes may already have cleared it (as in the deadline test below).
    expect(await getObject('apps/v1', 'Deployment', dest, 'web')).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'settings')).toBeUndefined();
    expect(app.status?.inventory ?? []).toEqual([]);
    // The SyncFail hook ran (a ConfigMap: done once it exists).
    expect((await getObject('v1', 'ConfigMap', dest, 'sync-failed'))?.['data']).toEqual({ why: 'migration' });
    // Events are recorded in the background: wait until both have landed, then compare their times.
    const reasons = await waitUntil(
      async () => {
        const seen = (await timeline('fail')).map((e) => e.reason);
        return seen.includes('HookFailed') && seen.includes('HookSucceeded') ? seen : undefined;
      },
      { what: 'the HookFailed and HookSucceeded events', timeoutMs: 30_000 },
    );
    expect(reasons.indexOf('HookFailed')).toBeLessThan(reasons.indexOf('HookSucceeded'));
  });

  it('a sync still waiting at its operationTimeout ends Failed, DeadlineExceeded, and its running hook is stopped', async () => {
    // A migration whose Pod can never be scheduled and that has no deadline of its own: it would run forever.
    const stuck = jobYaml('migrate', { 'cd.svc.space/hook': 'PreSync' }).replace(
      '      containers:',
      '      nodeSelector: {nowhere: "true"}\n      containers:',
    );
    const repo = await suite.git.createRepo(unique('late'), {
      'm/migrate.yaml': stuck,
      'm/web.yaml': deploymentYaml('web'),
    });
    const dest = await suite.gitApp('late', repo, { syncPolicy: { operationTimeout: '3s' } });
    const id = await requestOperation(org, 'late', 'Sync');
    const app = await waitForApp(org, 'late', 'the sync ended', operationEnded(id), 60_000);
    expect(app.status?.operationState?.phase).toBe('Failed');
    expect(app.status?.operationState?.message).toMatch(
      /operation deadline \(3s\) exceeded waiting for PreSync Job migrate/,
    );
    // The operation keeps why (the SyncError condition is cleared by the next reconcile that succeeds).
    expect(app.status?.operationState?.reason).toBe('DeadlineExceeded');
    expect(await getObject('apps/v1', 'Deployment', dest, 'web')).toBeUndefined();
    await waitUntil(async () => (await getObject('batch/v1', 'Job', dest, 'migrate')) === undefined || undefined, {
      what: 'the running hook stopped (deleted)',
    });
    expect(await stepsOnceReported('late', ['HookStopped'], 1)).toHaveLength(1);
  });

  it("a Helm chart's hooks and Argo CD's sync-wave run as svc's: pre-install before the rest, weight as the wave", async () => {
    const hook = (name: string, event: string, weight: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-${name}\n  annotations:\n    helm.sh/hook: ${event}\n    helm.sh/hook-weight: "${weight}"\ndata:\n  at: ${name}\n`;
    const repo = await suite.git.createRepo(unique('helm'), {
      'm/Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n',
      'm/templates/db-init.yaml': hook('db-init', 'pre-install,pre-upgrade', '-5'),
      'm/templates/schema.yaml': hook('schema', 'pre-install,pre-upgrade', '0'),
      'm/templates/notify.yaml': hook('notify', 'post-install,post-upgrade', '0'),
      'm/templates/teardown.yaml': hook('teardown', 'pre-delete', '0'),
      'm/templates/cfg.yaml': annotate(configMapYaml('{{ .Release.Name }}-cfg'), {
        'argocd.argoproj.io/sync-wave': '-1',
      }),
      'm/templates/web.yaml': deploymentYaml('{{ .Release.Name }}-web'),
    });
    const dest = await suite.gitApp('helm', repo);
    const id = await requestOperation(org, 'helm', 'Sync');
    const app = await waitForApp(org, 'helm', 'the sync ended', operationEnded(id), 120_000);
    expect(app.status?.operationState?.phase, app.status?.operationState?.message).toBe('Succeeded');
    const steps = await stepsOnceReported('helm', ['HookSucceeded', 'WaveSynced'], 5);
    expect(steps).toEqual([
      'PreSync ConfigMap helm-db-init succeeded',
      'PreSync ConfigMap helm-schema succeeded',
      'wave -1: ConfigMap helm-cfg',
      'wave 0: Deployment helm-web',
      'PostSync ConfigMap helm-notify succeeded',
    ]);
    // A hook for an event svc has no such thing as (pre-delete) is never applied.
    expect(await getObject('v1', 'ConfigMap', dest, 'helm-teardown')).toBeUndefined();
    expect(inventoryKinds(app).sort()).toEqual(['ConfigMap', 'Deployment']);
  });

  it('a new revision supersedes an automated sync waiting on a wave: Superseded, then the new revision syncs', async () => {
    // Wave 0 never becomes healthy (its Pods cannot be scheduled; Progressing, not Degraded): wave 1 waits on it.
    const after = annotate(configMapYaml('after'), { 'cd.svc.space/sync-wave': '1' });
    const repo = await suite.git.createRepo(unique('newer'), {
      'm/web.yaml': deploymentYaml('web', 1, 'nginx:1.0', { nowhere: 'true' }),
      'm/after.yaml': after,
    });
    const dest = await suite.gitApp('newer', repo, { syncPolicy: { automated: true } });
    await waitUntil(async () => (await getObject('apps/v1', 'Deployment', dest, 'web')) ?? undefined, {
      what: 'wave 0 applied',
    });
    expect(await getObject('v1', 'ConfigMap', dest, 'after')).toBeUndefined();

    // The fix lands upstream while the sync waits on wave 0: the automated App's poll sees it and supersedes the wait.
    const fixed = await repo.commit({ 'm/web.yaml': deploymentYaml('web') }, 'schedulable');
    const app = await waitForApp(org, 'newer', 'the new revision synced', (a) => a.status?.revision === fixed, 60_000);
    expect(app.status?.syncStatus).toBe('Synced');
    expect(await getObject('v1', 'ConfigMap', dest, 'after')).toBeDefined();
    const superseded = (await eventsOnceReported(org, 'newer', 'SyncSuperseded')).filter(
      (e) => e.reason === 'SyncSuperseded',
    );
    expect(superseded).toHaveLength(1);
    expect(superseded[0]?.type).toBe('Normal');
    expect(superseded[0]?.message).toMatch(
      new RegExp(`superseded by revision ${fixed.slice(0, 12)} waiting for wave 0 to be healthy`),
    );
    // Not a failure: no SyncFailed event, and the App ends without an error condition.
    expect((await eventsAbout(org, 'newer')).some((e) => e.reason === 'SyncFailed')).toBe(false);
    expect(app.status?.conditions?.find((c) => c.type === 'SyncError')?.status ?? 'False').toBe('False');
  });

  it('an operation records what it did to each object: applied, and pruned at the wave it was deleted in', async () => {
    const repo = await suite.git.createRepo(unique('did'), {
      'm/keep.yaml': configMapYaml('keep'),
      'm/old.yaml': annotate(configMapYaml('old'), { 'cd.svc.space/sync-wave': '2' }),
    });
    const dest = await suite.gitApp('did', repo, { syncPolicy: { prune: true } });
    const first = await requestOperation(org, 'did', 'Sync');
    const synced = await waitForApp(org, 'did', 'the first sync ended', operationEnded(first), 60_000);
    const did = (a: AppResource) =>
      (a.status?.operationState?.resources ?? []).map((r) => `${r.wave} ${r.name} ${r.result}`);
    expect(did(synced)).toEqual(['0 keep Synced', '2 old Synced']);

    await repo.commit({ 'm/old.yaml': null }, 'drop old');
    const second = await requestOperation(org, 'did', 'Sync');
    const pruned = await waitForApp(org, 'did', 'the second sync ended', operationEnded(second), 60_000);
    expect(pruned.status?.operationState?.phase).toBe('Succeeded');
    expect(did(pruned)).toEqual(['0 keep Synced', '2 old Pruned']);
    expect(pruned.status?.operationState?.resources?.[1]).toMatchObject({ kind: 'ConfigMap', namespace: dest });
    expect(await getObject('v1', 'ConfigMap', dest, 'old')).toBeUndefined();
  });
});
