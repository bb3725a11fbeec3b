import { describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND } from '../../src/core/app-schema.ts';
import { waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  createApp,
  deploymentYaml,
  eventsOnceReported,
  getApp,
  getObject,
  kube,
  requestOperation,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const logLines: string[] = [];
const suite = useOperatorSuite('org-delete', { tuning: { deleteTimeoutMs: 2000 }, logLines });
const { org } = suite;

async function deployed(name: string, annotations?: Record<string, string>) {
  const repo = await suite.git.createRepo(unique(name), {
    'm/web.yaml': deploymentYaml('web'),
    'm/cm.yaml': configMapYaml('cm'),
  });
  const dest = await suite.gitApp(name, repo, { syncPolicy: { automated: true } }, annotations);
  const app = await waitForApp(org, name, 'synced', (a) => a.status?.syncStatus === 'Synced');
  expect(app.metadata.finalizers).toContain('cd.svc.space/resources');
  return dest;
}

const deleteApp = (name: string) =>
  kube().delete({ apiVersion: APP_API_VERSION, kind: APP_KIND, name, namespace: org });
const gone = (name: string) =>
  waitUntil(async () => (await getApp(org, name)) === undefined, { what: `App ${name} deleted`, timeoutMs: 30_000 });

describe('deleting an App', () => {
  it('cascade (default): removes what it applied; the namespace it created stays', async () => {
    const dest = await deployed('cascade');
    await deleteApp('cascade');
    await gone('cascade');
    expect(await getObject('v1', 'ConfigMap', dest, 'cm')).toBeUndefined();
    await waitUntil(async () => (await getObject('apps/v1', 'Deployment', dest, 'web')) === undefined, {
      what: 'Deployment deleted',
      timeoutMs: 30_000,
    });
    const ns = await getObject('v1', 'Namespace', undefined, dest);
    expect(ns?.metadata['deletionTimestamp']).toBeUndefined();
  });

  it('logs nothing at error level about an App that is gone (a write that finds it deleted ends the reconcile quietly)', async () => {
    await deployed('quiet');
    await deleteApp('quiet');
    await gone('quiet');
    // The queue may still hold the App (a live object's change, the resync): give those reconciles a sync period.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // The operator's lines are collected (trace level). Whether a stale reconcile meets the deleted App depends on
    // timing (it does on a quiet machine: the 404 line of issue 31 item 5); when it does, it is not an error.
    expect(logLines.length).toBeGreaterThan(0);
    const about = logLines
      .map((l) => JSON.parse(l) as { level: number; msg: string; app?: { name?: string } })
      .filter((l) => l.app?.name === 'quiet');
    expect(about.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('orphan policy: the resources stay', async () => {
    const dest = await deployed('orphan', { 'cd.svc.space/delete-policy': 'orphan' });
    await deleteApp('orphan');
    await gone('orphan');
    expect(await getObject('v1', 'ConfigMap', dest, 'cm')).toBeDefined();
    expect(await getObject('apps/v1', 'Deployment', dest, 'web')).toBeDefined();
  });

  it('an unreachable destination does not wedge the deletion forever', async () => {
    const dest = suite.dest();
    await createApp(org, 'wedged', {
      source: { type: 'Git', git: { repoURL: `${suite.git.baseURL}/nothing.git` } },
      destination: { namespace: dest, cluster: 'cluster-that-does-not-exist' },
    });
    await waitForApp(org, 'wedged', 'finalizer added', (a) => (a.metadata.finalizers ?? []).length > 0);
    await deleteApp('wedged');
    await gone('wedged');
    const events = await eventsOnceReported(org, 'wedged', 'DeleteAbandoned');
    expect(events.map((e) => e.reason)).toContain('DeleteAbandoned');
  });
});

describe("a destination namespace deleted behind svc's back", () => {
  it('is created again by the next sync (the operator remembers namespaces it made, and checks again when an apply there fails)', async () => {
    const dest = await deployed('ns-gone');
    await kube().delete({ apiVersion: 'v1', kind: 'Namespace', name: dest });
    await waitUntil(async () => (await getObject('v1', 'Namespace', undefined, dest)) === undefined, {
      what: `namespace ${dest} deleted`,
      timeoutMs: 90_000,
    });
    const id = await requestOperation(org, 'ns-gone', 'Sync');
    const done = await waitForApp(
      org,
      'ns-gone',
      'the sync after the namespace was deleted',
      (a) => a.status?.operationState?.id === id && a.status.operationState.phase !== 'Running',
      60_000,
    );
    expect(done.status?.operationState?.phase).toBe('Succeeded');
    const ns = await getObject('v1', 'Namespace', undefined, dest);
    expect(ns?.metadata.labels?.['cd.svc.space/created-for-app']).toBe('ns-gone');
    expect(await getObject('v1', 'ConfigMap', dest, 'cm')).toBeDefined();
    expect(await getObject('apps/v1', 'Deployment', dest, 'web')).toBeDefined();
  });
});
