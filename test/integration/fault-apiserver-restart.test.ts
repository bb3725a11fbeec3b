/**
 * Fault matrix (issue 17): kube-apiserver restarted mid-sync. A control plane of its own (the shared one is not
 * disturbed) with an API server and an operator on it; an automated App's sync is held at its git fetch, the
 * apiserver stops, the fetch is released, so the sync meets a dead apiserver. While it is down the API answers its
 * routes that need the apiserver 503 with a clear `{"error"}` (never a 500), while the list (served from its App cache)
 * and /readyz stay 200 (every replica shares the one cluster: failing readiness would only take
 * them all out of the load balancer); after `up()` on the same port and data, the
 * operator's watches recover (an App created after the restart is picked up), the held App converges at the new
 * commit, nothing it deployed is lost, and the API's App cache serves the new state — no restart of svc.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND, type AppResource } from '../../src/core/app-schema.ts';
import { connect, type ObjectClient } from '../../src/kube/index.ts';
import { type ControlPlane, type GitServer, startControlPlane, startGitServer, waitUntil } from '../harness/index.ts';
import { createOrg, signUp, startTestApi, type TestApi, type TestUser } from './api-support.ts';
import { configMapYaml, startTestOperator, type TestOperator, unique } from './operator-support.ts';

type Json = Record<string, unknown>;

describe('fault: kube-apiserver restarted mid-sync', () => {
  let plane: ControlPlane;
  let git: GitServer;
  let api: TestApi;
  let op: TestOperator;
  let owner: TestUser;
  let orgNs: string;
  let objects: ObjectClient;

  beforeAll(async () => {
    plane = await startControlPlane({ name: 'fault-kube', kwok: false, controllers: false });
    git = await startGitServer();
    api = await startTestApi({ mgmtKubeconfig: plane.kubeconfigPath });
    owner = await signUp(api, 'owner');
    const slug = unique('fk');
    await createOrg(api, owner, slug);
    orgNs = `org-${slug}`;
    op = await startTestOperator(orgNs, {
      env: { SVC_MGMT_KUBECONFIG: plane.kubeconfigPath },
      tuning: { backoffBaseMs: 200 },
    });
    objects = connect({ kubeconfigPath: plane.kubeconfigPath }).objects;
  });
  afterAll(async () => {
    await plane?.up().catch(() => undefined);
    await op?.stop();
    await api?.close();
    await git?.stop();
    await plane?.stop();
  });

  const getApp = async (name: string) =>
    (await objects.get({ apiVersion: APP_API_VERSION, kind: APP_KIND, name, namespace: orgNs })) as unknown as
      | AppResource
      | undefined;
  const waitForApp = async (name: string, what: string, check: (a: AppResource) => boolean) => {
    let last: AppResource | undefined;
    try {
      return await waitUntil(
        async () => {
          last = await getApp(name);
          return last && check(last) ? last : undefined;
        },
        { what, timeoutMs: 120_000, intervalMs: 250 },
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

  it('503 with {"error"} while down; watches recover, the App converges, nothing lost', async () => {
    const repo = await git.createRepo(unique('kube'), {
      'm/a.yaml': configMapYaml('a', { v: '1' }),
      'm/b.yaml': configMapYaml('b', { v: '1' }),
    });
    const dest = unique('dest');
    expect((await createApp('held', repo.url, dest)).status).toBe(201);
    const c1 = await repo.head();
    const first = await waitForApp('held', 'first sync', syncedAt(c1));

    // Mid-sync: the periodic resync fetches the new commit and is held there; the apiserver stops under it.
    const hold = git.hold();
    const c2 = await repo.commit({ 'm/a.yaml': configMapYaml('a', { v: '2' }) }, 'v2');
    await waitUntil(() => hold.waiting() > 0 || undefined, { what: 'a fetch held', timeoutMs: 60_000, intervalMs: 50 });
    await plane.down();
    hold.release();
    try {
      const appPath = `/api/v1/apps/${dest}/held`;
      // The API's view while the apiserver is down: 503 with a message, never a 500 or a stack.
      const tries: Array<[string, string, unknown?]> = [
        ['POST', `${appPath}/sync`, {}],
        [
          'POST',
          '/api/v1/apps',
          { name: 'late', namespace: unique('dest'), source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } } },
        ],
        ['GET', appPath],
        ['GET', `${appPath}/resources`],
      ];
      for (const [method, url, body] of tries) {
        const res = await api.call<Json>(method, url, {
          cookie: owner.cookie,
          ...(body === undefined ? {} : { body }),
        });
        expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(503);
        expect(res.body['error'], `${method} ${url}`).toEqual(expect.any(String));
        expect(String(res.body['error'])).not.toMatch(/\n\s+at /);
      }
      // The list is served from the API's App cache: the last known state.
      const list = await api.call<Json>('GET', '/api/v1/apps', { cookie: owner.cookie });
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      expect(JSON.stringify(list.body)).toContain(c1);
      expect((await api.call('GET', '/readyz')).status).toBe(200);
    } finally {
      await plane.up();
    }

    // The operator's watches recover: an App created after the restart is seen and synced.
    const laterDest = unique('dest');
    expect((await createApp('after', repo.url, laterDest)).status).toBe(201);
    await waitForApp('after', 'an App created after the restart synced', syncedAt(c2));
    const recovered = await waitForApp('held', 'the held App converged at the new commit', syncedAt(c2));
    expect(recovered.status?.inventory).toEqual(first.status?.inventory);
    const data = async (name: string) =>
      (await objects.get({ apiVersion: 'v1', kind: 'ConfigMap', name, namespace: dest }))?.['data'];
    expect(await data('a')).toEqual({ v: '2' });
    expect(await data('b')).toEqual({ v: '1' });
    // The API's own App cache caught up too.
    await waitUntil(
      async () => {
        const res = await api.call<Json>('GET', `/api/v1/apps/${dest}/held`, { cookie: owner.cookie });
        return res.status === 200 && JSON.stringify(res.body).includes(c2) ? res : undefined;
      },
      { what: 'the API showing the new revision', timeoutMs: 60_000 },
    );
    expect((await api.call('GET', '/readyz')).status).toBe(200);
  });
});
