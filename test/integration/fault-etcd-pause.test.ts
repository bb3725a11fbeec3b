/**
 * Fault matrix (issue 17): etcd paused. A control plane of its own (the shared one is not disturbed) with an API server
 * and an operator on it; its etcd is frozen with SIGSTOP, so the apiserver still accepts connections but every request
 * that reaches storage hangs. The API answers the routes that need the cluster 503 with a clear `{"error"}` (never a 500
 * or a stack) once its own request timeout runs out, and keeps serving the App list from its cache; after SIGCONT the
 * operator and the API recover without a restart: a commit made meanwhile syncs, an App created afterwards syncs, and
 * nothing deployed is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND, type AppResource } from '../../src/core/app-schema.ts';
import { connect, type ObjectClient } from '../../src/kube/index.ts';
import { type ControlPlane, type GitServer, startControlPlane, startGitServer, waitUntil } from '../harness/index.ts';
import { createOrg, signUp, startTestApi, type TestApi, type TestUser } from './api-support.ts';
import { configMapYaml, startTestOperator, type TestOperator, unique } from './operator-support.ts';

type Json = Record<string, unknown>;

describe('fault: etcd paused', () => {
  let plane: ControlPlane;
  let git: GitServer;
  let api: TestApi;
  let op: TestOperator;
  let owner: TestUser;
  let orgNs: string;
  let objects: ObjectClient;

  beforeAll(async () => {
    plane = await startControlPlane({ name: 'fault-etcd', kwok: false, controllers: false });
    git = await startGitServer();
    api = await startTestApi({ mgmtKubeconfig: plane.kubeconfigPath });
    owner = await signUp(api, 'owner');
    const slug = unique('fe');
    await createOrg(api, owner, slug);
    orgNs = `org-${slug}`;
    op = await startTestOperator(orgNs, {
      env: { SVC_MGMT_KUBECONFIG: plane.kubeconfigPath },
      tuning: { backoffBaseMs: 200 },
    });
    objects = connect({ kubeconfigPath: plane.kubeconfigPath }).objects;
  });
  afterAll(async () => {
    plane?.resumeEtcd();
    await op?.stop();
    await api?.close();
    await git?.stop();
    await plane?.stop();
  });

  const waitForApp = async (name: string, what: string, check: (a: AppResource) => boolean) => {
    let last: AppResource | undefined;
    try {
      return await waitUntil(
        async () => {
          last = (await objects.get({ apiVersion: APP_API_VERSION, kind: APP_KIND, name, namespace: orgNs })) as
            | AppResource
            | undefined;
          return last && check(last) ? last : undefined;
        },
        { what, timeoutMs: 180_000, intervalMs: 250 },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\nlast status: ${JSON.stringify(last?.status, null, 1)}`);
    }
  };
  const createApp = (name: string, repoURL: string, namespace: string) =>
    api.call<Json>('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: {
        name,
        namespace,
        source: { type: 'Git', git: { repoURL, path: 'm' } },
        sync_policy: { automated: true, prune: true },
      },
    });
  const syncedAt = (revision: string) => (a: AppResource) =>
    a.status?.revision === revision && a.status.syncStatus === 'Synced';

  it('503 with {"error"} while etcd is frozen, never 500; everything converges after it resumes', async () => {
    const repo = await git.createRepo(unique('etcd'), {
      'm/a.yaml': configMapYaml('a', { v: '1' }),
      'm/b.yaml': configMapYaml('b', { v: '1' }),
    });
    const dest = unique('dest');
    expect((await createApp('steady', repo.url, dest)).status).toBe(201);
    const c1 = await repo.head();
    const first = await waitForApp('steady', 'first sync', syncedAt(c1));
    // The list below is answered from the API's App cache, which must have loaded first (readiness says so) and
    // seen the first sync: on a loaded machine its first list can come after the App synced.
    await waitUntil(
      async () => {
        if ((await api.call('GET', '/readyz')).status !== 200) return undefined;
        const res = await api.call<Json>('GET', '/api/v1/apps', { cookie: owner.cookie });
        return JSON.stringify(res.body).includes(c1) ? res : undefined;
      },
      { what: "the API's App cache synced with the first sync", timeoutMs: 120_000 },
    );

    plane.pauseEtcd();
    let c2: string;
    try {
      c2 = await repo.commit({ 'm/a.yaml': configMapYaml('a', { v: '2' }) }, 'v2');
      const appPath = `/api/v1/apps/${dest}/steady`;
      const tries: Array<[string, string, unknown?]> = [
        ['GET', appPath],
        ['GET', `${appPath}/resources`],
        ['POST', `${appPath}/sync`, {}],
      ];
      // All at once: each waits out the API's request timeout to the cluster.
      const replies = await Promise.all(
        tries.map(([method, url, body]) =>
          api.call<Json>(method, url, { cookie: owner.cookie, ...(body === undefined ? {} : { body }) }),
        ),
      );
      for (const [i, res] of replies.entries()) {
        const [method, url] = tries[i] as [string, string];
        expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(503);
        expect(res.body['error'], `${method} ${url}`).toEqual(expect.any(String));
        expect(String(res.body['error'])).not.toMatch(/\n\s+at /);
      }
      // The list is served from the API's App cache: the last known state.
      const list = await api.call<Json>('GET', '/api/v1/apps', { cookie: owner.cookie });
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      expect(JSON.stringify(list.body)).toContain(c1);
    } finally {
      plane.resumeEtcd();
    }

    // Everything converges without a restart: the commit made meanwhile, and an App created afterwards.
    const recovered = await waitForApp('steady', 'the App converged at the new commit', syncedAt(c2));
    expect(recovered.status?.inventory).toEqual(first.status?.inventory);
    const laterDest = unique('dest');
    expect((await createApp('after', repo.url, laterDest)).status).toBe(201);
    await waitForApp('after', 'an App created after etcd resumed synced', syncedAt(c2));
    const data = async (name: string) =>
      (await objects.get({ apiVersion: 'v1', kind: 'ConfigMap', name, namespace: dest }))?.['data'];
    expect(await data('a')).toEqual({ v: '2' });
    expect(await data('b')).toEqual({ v: '1' });
    await waitUntil(
      async () => {
        const res = await api.call<Json>('GET', `/api/v1/apps/${dest}/steady`, { cookie: owner.cookie });
        return res.status === 200 && JSON.stringify(res.body).includes(c2) ? res : undefined;
      },
      { what: 'the API showing the new revision', timeoutMs: 120_000 },
    );
  });
});
