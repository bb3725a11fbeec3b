/**
 * Live drift, selfHeal and ignoreDifferences (issue 25, items 1–3). Drift is made the way people and controllers make it: writes under
 * other field managers (`kubectl scale` through the scale subresource, an edit by merge patch, a delete). The
 * operator resyncs only every 10 minutes here, so nothing but the watch of the managed objects can notice the
 * drift within the tests' timeouts. The brake is tightened to 2 reverts per App per 10 minutes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import type { AnyObject, ObjectRef } from '../../src/kube/index.ts';
import { type ChatSink, startChatSink, waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  deploymentYaml,
  eventsAbout,
  eventsOnceReported,
  getObject,
  kube,
  patchSpec,
  requestOperation,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

let sink: ChatSink;

// Registered before the suite's hooks: the sink is up before the operator starts and stops after it.
beforeAll(async () => {
  sink = await startChatSink();
});

afterAll(async () => {
  await sink?.stop();
});

const suite = useOperatorSuite('org-drift', {
  tuning: { syncPeriodMs: 600_000, selfHealLimit: 2, selfHealWindowMs: 600_000 },
});
const { org } = suite;

/** A merge patch under field manager `manager` (what kubectl edit / kubectl scale do), optionally of a subresource. */
async function patchAs(manager: string, ref: ObjectRef, patch: unknown, subresource?: string): Promise<AnyObject> {
  const k = kube();
  return k.client.request<AnyObject>(await k.path(ref, subresource), {
    method: 'PATCH',
    query: { fieldManager: manager },
    body: patch,
    contentType: 'application/merge-patch+json',
  });
}

const resource = (app: AppResource, kind: string, name: string) =>
  app.status?.resources?.find((r) => r.kind === kind && r.name === name);

const synced = (app: AppResource) => app.status?.syncStatus === 'Synced';

async function configMapData(namespace: string, name: string): Promise<unknown> {
  return (await getObject('v1', 'ConfigMap', namespace, name))?.['data'];
}

describe('live drift', () => {
  it('an out-of-band scale reads OutOfSync on that resource; selfHeal then reverts it', async () => {
    const repo = await suite.git.createRepo(unique('scale'), {
      'm/web.yaml': deploymentYaml('web', 1),
      'm/a.yaml': configMapYaml('a'),
    });
    const dest = await suite.gitApp('scale', repo, { syncPolicy: { automated: true } });
    await waitForApp(org, 'scale', 'first sync', synced);

    const web = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: dest };
    await patchAs('kubectl', web, { spec: { replicas: 3 } }, 'scale');
    const drifted = await waitForApp(org, 'scale', 'OutOfSync by drift', (a) => a.status?.syncStatus === 'OutOfSync');
    expect(resource(drifted, 'Deployment', 'web')?.syncStatus).toBe('OutOfSync');
    expect(resource(drifted, 'ConfigMap', 'a')?.syncStatus).toBe('Synced');
    // Without selfHeal nothing reverts it.
    expect((await getObject('apps/v1', 'Deployment', dest, 'web'))?.['spec']).toMatchObject({ replicas: 3 });

    await patchSpec(org, 'scale', { syncPolicy: { automated: true, selfHeal: true } });
    const healed = await waitForApp(org, 'scale', 'reverted', synced);
    expect(resource(healed, 'Deployment', 'web')?.syncStatus).toBe('Synced');
    expect((await getObject('apps/v1', 'Deployment', dest, 'web'))?.['spec']).toMatchObject({ replicas: 1 });
    const events = await eventsOnceReported(org, 'scale', 'SelfHealed');
    expect(events.find((e) => e.reason === 'SelfHealed')?.message).toContain(
      'Deployment web: spec.replicas (taken by kubectl)',
    );
  });

  it('selfHeal reverts an edit under another manager and recreates a deleted object, from the watch alone', async () => {
    const repo = await suite.git.createRepo(unique('heal'), { 'm/a.yaml': configMapYaml('a', { v: '1' }) });
    const dest = await suite.gitApp('heal', repo, { syncPolicy: { automated: true, selfHeal: true } });
    await waitForApp(org, 'heal', 'first sync', synced);
    const a = { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: dest };

    await patchAs('kubectl-edit', a, { data: { v: 'edited' } });
    // The revert is told by its event (the edit itself may be reverted before a poll could see it).
    await waitUntil(async () => (await eventsAbout(org, 'heal')).some((e) => e.reason === 'SelfHealed') || undefined, {
      what: 'the edit reverted',
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    expect(await configMapData(dest, 'a')).toEqual({ v: '1' });

    await kube().delete(a);
    await waitUntil(async () => JSON.stringify(await configMapData(dest, 'a')) === '{"v":"1"}' || undefined, {
      what: 'the deleted ConfigMap recreated',
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const app = await waitForApp(org, 'heal', 'Synced again', synced);
    expect(resource(app, 'ConfigMap', 'a')?.syncStatus).toBe('Synced');
    // Events land in the background: wait for the second revert's.
    const messages = await waitUntil(
      async () => {
        const seen = (await eventsAbout(org, 'heal')).filter((e) => e.reason === 'SelfHealed').map((e) => e.message);
        return seen.some((m) => m.includes('ConfigMap a: deleted')) ? seen : undefined;
      },
      { what: 'the SelfHealed event of the deleted ConfigMap', timeoutMs: 30_000 },
    );
    expect(messages.some((m) => m.includes('ConfigMap a: data.v (taken by kubectl-edit)'))).toBe(true);
  });

  it('stops reverting a writer that keeps coming back: SelfHealPaused names it', async () => {
    const repo = await suite.git.createRepo(unique('fight'), { 'm/a.yaml': configMapYaml('a', { v: '1' }) });
    const dest = await suite.gitApp('fight', repo, {
      syncPolicy: { automated: true, selfHeal: true },
      notifications: { chat: { webhookURL: sink.url, onSyncFailure: true } },
    });
    await waitForApp(org, 'fight', 'first sync', synced);
    const a = { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: dest };
    /** Waits until the edit that answered `edited` was reverted (a newer version holding v=1). */
    const reverted = (edited: AnyObject) =>
      waitUntil(
        async () => {
          const live = await getObject('v1', 'ConfigMap', dest, 'a');
          const newer = Number(live?.metadata.resourceVersion) > Number(edited.metadata.resourceVersion);
          return (newer && JSON.stringify(live?.['data']) === '{"v":"1"}') || undefined;
        },
        { what: 'reverted', timeoutMs: 30_000, intervalMs: 100 },
      );

    for (let i = 0; i < 2; i++) await reverted(await patchAs('fighter', a, { data: { v: `x${i}` } }));
    await patchAs('fighter', a, { data: { v: 'x2' } });
    const paused = await waitForApp(org, 'fight', 'SelfHealPaused', (app) =>
      (app.status?.conditions ?? []).some((c) => c.type === 'SelfHealPaused' && c.status === 'True'),
    );
    expect(paused.status?.syncStatus).toBe('OutOfSync');
    expect(paused.status?.conditions?.find((c) => c.type === 'SelfHealPaused')?.message).toContain(
      'ConfigMap a: data.v (taken by fighter)',
    );
    expect(await configMapData(dest, 'a')).toEqual({ v: 'x2' });
    expect((await eventsOnceReported(org, 'fight', 'SelfHealPaused')).length).toBeGreaterThan(0);
    const told = await sink.waitFor((r) => (r.json as { app?: string; event?: string }).app === 'fight');
    expect(told.json).toMatchObject({ event: 'sync.failed', phase: 'Failed' });
    expect(JSON.stringify(told.json)).toContain('taken by fighter');
    expect(sink.requests.filter((r) => (r.json as { app?: string }).app === 'fight')).toHaveLength(1);
  });

  it("an HPA's replicas (ignored by field manager) is never fought, and a sync keeps it", async () => {
    const repo = await suite.git.createRepo(unique('hpa'), { 'm/web.yaml': deploymentYaml('web', 1) });
    const ignoreDifferences = [
      { group: 'apps', kind: 'Deployment', managedFieldsManagers: ['kube-controller-manager'] },
    ];
    const dest = await suite.gitApp('hpa', repo, {
      syncPolicy: { automated: true, selfHeal: true },
      ignoreDifferences,
    });
    await waitForApp(org, 'hpa', 'first sync', synced);
    const web = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: dest };
    // What the HPA controller does: write the scale subresource as kube-controller-manager.
    await patchAs('kube-controller-manager', web, { spec: { replicas: 3 } }, 'scale');

    const c2 = await repo.commit({ 'm/web.yaml': deploymentYaml('web', 1, 'nginx:2.0') }, 'v2');
    const id = await requestOperation(org, 'hpa', 'Sync');
    const done = await waitForApp(
      org,
      'hpa',
      'v2 synced',
      (a) => a.status?.operationState?.id === id && a.status.operationState.phase === 'Succeeded',
    );
    expect(done.status?.revision).toBe(c2);
    expect(done.status?.syncStatus).toBe('Synced');
    const live = await getObject('apps/v1', 'Deployment', dest, 'web');
    expect(live?.['spec']).toMatchObject({ replicas: 3 });
    expect(JSON.stringify(live?.['spec'])).toContain('nginx:2.0');
    expect((await eventsAbout(org, 'hpa')).some((e) => e.reason === 'SelfHealed')).toBe(false);
  });

  it('a field under an ignored JSON pointer is not drift and keeps its live value through a sync', async () => {
    const repo = await suite.git.createRepo(unique('ptr'), { 'm/a.yaml': configMapYaml('a', { v: '1', w: '1' }) });
    const ignoreDifferences = [{ kind: 'ConfigMap', name: 'a', jsonPointers: ['/data/v'] }];
    const dest = await suite.gitApp('ptr', repo, {
      syncPolicy: { automated: true, selfHeal: true },
      ignoreDifferences,
    });
    await waitForApp(org, 'ptr', 'first sync', synced);
    const a = { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: dest };
    await patchAs('kubectl-edit', a, { data: { v: 'mine' } });

    await repo.commit({ 'm/a.yaml': configMapYaml('a', { v: '1', w: '2' }) }, 'w=2');
    const id = await requestOperation(org, 'ptr', 'Sync');
    const done = await waitForApp(
      org,
      'ptr',
      'w=2 synced',
      (app) => app.status?.operationState?.id === id && app.status.operationState.phase === 'Succeeded',
    );
    expect(done.status?.syncStatus).toBe('Synced');
    expect(await configMapData(dest, 'a')).toEqual({ v: 'mine', w: '2' });
    expect((await eventsAbout(org, 'ptr')).some((e) => e.reason === 'SelfHealed')).toBe(false);
  });
});
