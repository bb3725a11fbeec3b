/**
 * `GET /apps/:ns/:name/status?wait=` is served from the API server's App cache: N concurrent waits open no
 * Kubernetes watch of their own. Proven on a control plane of this file's own (so no other test's watches count) by
 * the apiserver's metrics: the number of open WATCH requests on apps while the waits are pending, and the WATCH
 * requests served, before and after, in the same run. The operator's part, writing the App's status, is played by
 * writing the status subresource; what is under test is the API's wait.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect, type KubeClient } from '../../src/kube/index.ts';
import { apiserverMetric, apiserverRequestCounts, type ControlPlane, startControlPlane } from '../harness/index.ts';
import { AppResources, createOrg, signUp, startTestApi, type TestApi, type TestUser } from './api-support.ts';

type Json = Record<string, unknown>;
const WAITS = 8;
const WAIT = { timeout: 30_000, interval: 50 };

/** WATCH requests on apps open right now (the apiserver's long-running request gauge). */
async function openAppWatches(client: KubeClient): Promise<number> {
  const samples = await apiserverMetric(client, 'apiserver_longrunning_requests');
  return samples
    .filter((s) => s.labels['verb'] === 'WATCH' && s.labels['resource'] === 'apps')
    .reduce((sum, s) => sum + s.value, 0);
}

describe('status wait served from the App cache', () => {
  let plane: ControlPlane;
  let client: KubeClient;
  let api: TestApi;
  let owner: TestUser;
  let kube: AppResources;
  let orgNs: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    plane = await startControlPlane({ name: 'wait', kwok: false, controllers: false });
    client = connect({ kubeconfigPath: plane.kubeconfigPath }).client;
    api = await startTestApi({ mgmtKubeconfig: plane.kubeconfigPath, logLines });
    kube = new AppResources(plane.kubeconfigPath);
    owner = await signUp(api, 'owner');
    const slug = `wait-${randomBytes(3).toString('hex')}`;
    await createOrg(api, owner, slug);
    orgNs = `org-${slug}`;
    await vi.waitFor(() => expect(logLines.some((l) => l.includes('app cache synced'))).toBe(true), WAIT);
    for (let i = 0; i < WAITS; i++) {
      const res = await api.call('POST', '/api/v1/apps', {
        cookie: owner.cookie,
        body: {
          name: `app-${i}`,
          namespace: `dest-${i}`,
          source: { type: 'Git', git: { repoURL: 'https://g.test/x.git' } },
        },
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await api?.close();
    await kube?.client.dropConnections();
    await client?.dropConnections();
    await plane?.stop();
  });

  it(`answers ${WAITS} concurrent waits without opening a watch per request`, async () => {
    // Only the API server's App cache watches Apps on this plane.
    expect(await openAppWatches(client)).toBe(1);
    const before = await apiserverRequestCounts(client);
    const settled: boolean[] = [];
    const waits = Array.from({ length: WAITS }, (_, i) =>
      api.call<Json>('GET', `/api/v1/apps/dest-${i}/app-${i}/status?wait=2m`, { cookie: owner.cookie }).finally(() => {
        settled[i] = true;
      }),
    );
    // Each wait reads its App once (the access check) before it waits: once all reads were served, every request
    // is waiting, and an implementation with a watch per request would have opened (or be opening) its watches.
    await vi.waitFor(async () => {
      const now = await apiserverRequestCounts(client);
      expect((now['GET apps'] ?? 0) - (before['GET apps'] ?? 0)).toBeGreaterThanOrEqual(WAITS);
    }, WAIT);
    expect(settled.filter(Boolean)).toHaveLength(0);
    expect(await openAppWatches(client)).toBe(1);

    for (let i = 0; i < WAITS; i++) {
      await kube.setStatus(orgNs, `app-${i}`, { syncStatus: 'Synced', healthStatus: 'Healthy', revision: `r${i}` });
    }
    const answers = await Promise.all(waits);
    answers.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ sync_status: 'Synced', health: 'Healthy', revision: `r${i}` });
    });

    const after = await apiserverRequestCounts(client);
    expect((after['WATCH apps'] ?? 0) - (before['WATCH apps'] ?? 0)).toBe(0);
    expect(await openAppWatches(client)).toBe(1);
  });

  it('ends a wait when its App is deleted', async () => {
    await kube.setStatus(orgNs, 'app-0', { syncStatus: 'OutOfSync', healthStatus: 'Progressing' });
    const before = await apiserverRequestCounts(client);
    const waiting = api.call<Json>('GET', '/api/v1/apps/dest-0/app-0/status?wait=2m', { cookie: owner.cookie });
    // Deleted only once the request has read the App, so it is waiting (not answering 404).
    await vi.waitFor(async () => {
      const now = await apiserverRequestCounts(client);
      expect((now['GET apps'] ?? 0) - (before['GET apps'] ?? 0)).toBeGreaterThanOrEqual(1);
    }, WAIT);
    await kube.delete({ apiVersion: 'cd.svc.space/v1alpha1', kind: 'App', namespace: orgNs, name: 'app-0' });
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body['name']).toBe('app-0');
  });
});
