/**
 * Typed reconcile outcomes on the real control plane: a spec that cannot work is Stalled (condition with the
 * failing stage's reason) and is not retried — not by the periodic resync, not by a metadata change — until its spec
 * changes, after which it syncs; a transient failure (the git server down) is retried with the App's backoff and
 * recovers when the server returns. Reconciles are counted on the operator's metrics endpoint and the git server's
 * request log; the passing of time is witnessed by another App's periodic reconciles, never by a timer.
 */
import { describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND, type AppResource } from '../../src/core/app-schema.ts';
import { apiserverRequestCounts, waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  createApp,
  deploymentYaml,
  getApp,
  kube,
  patchSpec,
  reconcileCount,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

// A short backoff so a few transient failures fit in a test (the cap stays the suite's 3 s error requeue).
const suite = useOperatorSuite('org-outcomes', { tuning: { backoffBaseMs: 200 } });
const { org } = suite;

const condition = (a: AppResource, type: string) => a.status?.conditions?.find((c) => c.type === type);

/** `svc_reconcile_total{result=…}` of this suite's operator. */
const reconciles = (result: string) => reconcileCount(suite.op, result);

/** Requests the git server received for one repository. */
const requestsFor = (repoName: string) => suite.git.requests.filter((r) => r.path.includes(`/${repoName}.git/`)).length;

describe('typed reconcile outcomes', () => {
  it('a periodic resync that changes nothing sends no status write at all', async () => {
    const repo = await suite.git.createRepo(unique('quiet'), {
      'm/a.yaml': configMapYaml('a'),
      'm/web.yaml': deploymentYaml('web'),
    });
    await suite.gitApp('quiet', repo, { syncPolicy: { automated: true, selfHeal: true } });
    const settled = await waitForApp(
      org,
      'quiet',
      'Synced and Healthy',
      (a) => a.status?.syncStatus === 'Synced' && a.status.healthStatus === 'Healthy',
    );
    // The apiserver answers the status with its keys sorted; an unchanged status must still compare equal, or every
    // period sends a PATCH (which the apiserver finds to be a no-op: the resourceVersion alone would not show it).
    const patches = async () => (await apiserverRequestCounts(kube().client))['PATCH apps/status'] ?? 0;
    const before = await patches();
    const successes = await reconciles('success');
    await waitUntil(async () => (await reconciles('success')) >= successes + 3 || undefined, {
      what: 'three periodic reconciles of the App',
    });
    expect(await patches()).toBe(before);
    expect((await getApp(org, 'quiet'))?.metadata.resourceVersion).toBe(settled.metadata.resourceVersion);
  });

  it('a spec that cannot work is Stalled, not retried until the spec changes, then syncs', async () => {
    const name = unique('stall');
    const repo = await suite.git.createRepo(name, { 'm/a.yaml': configMapYaml('a') });
    const dest = suite.dest();
    await createApp(org, 'stuck', {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'nope' } },
      destination: { namespace: dest },
      syncPolicy: { automated: true },
    });
    const stalled = await waitForApp(org, 'stuck', 'Stalled', (a) => condition(a, 'Stalled')?.status === 'True');
    expect(condition(stalled, 'Stalled')).toMatchObject({
      reason: 'RenderFailed',
      message: 'path "nope" does not exist in the repository',
    });
    expect(condition(stalled, 'SyncError')).toMatchObject({ status: 'True', reason: 'RenderFailed' });
    // Nothing was ever applied: not Healthy.
    expect(stalled.status).toMatchObject({ healthStatus: 'Missing', syncStatus: 'Unknown' });
    // The metric is counted once the reconcile returns, just after its status write.
    await waitUntil(async () => (await reconciles('stalled')) === 1 || undefined, { what: 'one stalled reconcile' });

    // A control App reconciles every sync period (2 s): once it has reconciled three more times, the stalled App
    // would have been retried had anything requeued it.
    const control = await suite.git.createRepo(unique('control'), { 'm/a.yaml': configMapYaml('a') });
    await suite.gitApp('control', control, { syncPolicy: { automated: true } });
    await waitForApp(org, 'control', 'control synced', (a) => a.status?.syncStatus === 'Synced');
    const fetches = requestsFor(name);
    const successes = await reconciles('success');
    await waitUntil(async () => (await reconciles('success')) >= successes + 3 || undefined, {
      what: 'three periodic reconciles of the control App',
    });
    expect(await reconciles('stalled')).toBe(1);
    expect(requestsFor(name)).toBe(fetches);
    expect((await getApp(org, 'stuck'))?.metadata.resourceVersion).toBe(stalled.metadata.resourceVersion);

    // A metadata change wakes the App, which still does not retry: the generation is the same.
    const skipped = await reconciles('skipped');
    await kube().mergePatch(
      { apiVersion: APP_API_VERSION, kind: APP_KIND, name: 'stuck', namespace: org },
      { metadata: { annotations: { 'example.test/touched': 'yes' } } },
    );
    await waitUntil(async () => (await reconciles('skipped')) > skipped || undefined, {
      what: 'the woken App skipped',
    });
    expect(await reconciles('stalled')).toBe(1);
    expect(requestsFor(name)).toBe(fetches);

    // Fixing the spec (a new generation) retries at once, and the App syncs.
    await patchSpec(org, 'stuck', { source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } } });
    const fixed = await waitForApp(org, 'stuck', 'synced', (a) => a.status?.syncStatus === 'Synced');
    expect(condition(fixed, 'Stalled')).toBeUndefined();
    expect(condition(fixed, 'SyncError')).toMatchObject({ status: 'False', reason: 'NoError' });
    expect(fixed.status?.healthStatus).toBe('Healthy');
  });

  it('stalls on a Catalog source without the server and a local repository URL', async () => {
    const cases = [
      {
        name: 'catalog',
        source: { type: 'Catalog' as const, catalog: { template: 'web' } },
        cluster: '',
        reason: 'SourceFailed',
        // This operator runs without the server: a Catalog template cannot be read.
        message: 'source.type Catalog needs the server: this operator has no internal channel',
      },
      {
        name: 'local',
        source: { type: 'Git' as const, git: { repoURL: 'file:///etc' } },
        cluster: '',
        reason: 'SourceFailed',
        message: 'spec.source.git.repoURL must be an http(s), ssh or git URL',
      },
    ];
    for (const c of cases) {
      await createApp(org, c.name, { source: c.source, destination: { namespace: suite.dest(), cluster: c.cluster } });
    }
    for (const c of cases) {
      const app = await waitForApp(org, c.name, `${c.name} Stalled`, (a) => condition(a, 'Stalled')?.status === 'True');
      expect(condition(app, 'Stalled'), c.name).toMatchObject({ reason: c.reason, message: c.message });
      expect(condition(app, 'SyncError'), c.name).toMatchObject({ status: 'True', reason: c.reason });
    }
  });

  it('waits (never stalls) on a remote destination it cannot reach the server for', async () => {
    const repo = await suite.git.createRepo(unique('edge'), { 'm/a.yaml': configMapYaml('a') });
    await createApp(org, 'remote', {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      destination: { namespace: suite.dest(), cluster: 'edge' },
    });
    const app = await waitForApp(
      org,
      'remote',
      'DestinationFailed',
      (a) => condition(a, 'SyncError')?.status === 'True',
    );
    expect(condition(app, 'SyncError')).toMatchObject({
      reason: 'DestinationFailed',
      message: 'destination cluster "edge": the operator has no channel to the server to fetch its credentials',
    });
    expect(condition(app, 'Stalled')).toBeUndefined();
  });

  it('a transient failure (git server down) is retried with backoff and recovers when the server returns', async () => {
    const repo = await suite.git.createRepo(unique('flaky'), { 'm/a.yaml': configMapYaml('a', { v: '1' }) });
    const dest = await suite.gitApp('flaky', repo, { syncPolicy: { automated: true } });
    await waitForApp(org, 'flaky', 'first sync', (a) => a.status?.syncStatus === 'Synced');
    await suite.git.down();
    try {
      const c2 = await repo.commit({ 'm/a.yaml': configMapYaml('a', { v: '2' }) }, 'v2');
      const failing = await waitForApp(
        org,
        'flaky',
        'SourceFailed',
        (a) => condition(a, 'SyncError')?.status === 'True',
      );
      expect(condition(failing, 'SyncError')).toMatchObject({
        reason: 'SourceFailed',
        message: expect.stringMatching(/^cannot fetch /),
      });
      expect(condition(failing, 'Stalled')).toBeUndefined();
      // Retried, not stalled: several more failed reconciles while the server stays down.
      const errors = await reconciles('error');
      await waitUntil(async () => (await reconciles('error')) >= errors + 3 || undefined, { what: 'three retries' });
      await suite.git.up();
      const recovered = await waitForApp(org, 'flaky', 'recovered', (a) => a.status?.revision === c2);
      expect(condition(recovered, 'SyncError')).toMatchObject({ status: 'False' });
      expect((await kube().get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: dest }))?.['data']).toEqual(
        {
          v: '2',
        },
      );
    } finally {
      await suite.git.up().catch(() => undefined);
    }
  });
});
