/**
 * The API server's App cache against a real kube-apiserver: once it has synced, GET /apps follows Apps created,
 * changed and deleted directly through the apiserver (no restart), and the API's own writes show in the very next
 * read (read-your-writes).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { APP_API_VERSION, APP_KIND } from '../../src/core/app-schema.ts';
import { AppResources, createOrg, signUp, startTestApi, type TestApi, type TestUser } from './api-support.ts';

type Json = Record<string, unknown>;
const REPO = 'https://git.example.test/team/web.git';
const WAIT = { timeout: 30_000, interval: 50 };

describe('App cache of the API server', () => {
  const logLines: string[] = [];
  let api: TestApi;
  let owner: TestUser;
  let orgNs: string;
  let kube: AppResources;

  const list = async () =>
    (await api.call<{ apps: Json[] }>('GET', '/api/v1/apps', { cookie: owner.cookie })).body.apps;

  beforeAll(async () => {
    const kubeconfig = inject('mgmtKubeconfig');
    api = await startTestApi({ mgmtKubeconfig: kubeconfig, logLines });
    kube = new AppResources(kubeconfig);
    owner = await signUp(api, 'owner');
    const slug = `cache-${randomBytes(3).toString('hex')}`;
    await createOrg(api, owner, slug);
    orgNs = `org-${slug}`;
    // Every later list is answered from the cache, not from the apiserver fallback used before the first sync.
    await vi.waitFor(() => expect(logLines.some((l) => l.includes('app cache synced'))).toBe(true), WAIT);
  });
  afterAll(async () => api?.close());

  it('follows Apps created, changed and deleted directly through the apiserver', async () => {
    await kube.create({
      apiVersion: APP_API_VERSION,
      kind: APP_KIND,
      metadata: { name: 'outside', namespace: orgNs },
      spec: { source: { type: 'Git', git: { repoURL: REPO, path: 'deploy' } }, destination: { namespace: 'web' } },
    });
    await vi.waitFor(async () => expect((await list()).map((a) => a['name'])).toContain('outside'), WAIT);

    await kube.setStatus(orgNs, 'outside', { syncStatus: 'Synced', healthStatus: 'Healthy', revision: 'c7' });
    await vi.waitFor(
      async () =>
        expect((await list()).find((a) => a['name'] === 'outside')).toMatchObject({
          sync_status: 'Synced',
          health: 'Healthy',
          revision: 'c7',
        }),
      WAIT,
    );

    await kube.delete({ apiVersion: APP_API_VERSION, kind: APP_KIND, namespace: orgNs, name: 'outside' });
    await vi.waitFor(async () => expect((await list()).map((a) => a['name'])).not.toContain('outside'), WAIT);
  });

  it('shows its own creates, operations and deletes in the next read', async () => {
    const created = await api.call<Json>('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: { name: 'mine', namespace: 'mine', source: { type: 'Git', git: { repoURL: REPO, path: 'deploy' } } },
    });
    expect(created.status).toBe(201);
    expect((await list()).map((a) => a['name'])).toContain('mine');
    expect((await api.call('GET', '/api/v1/apps/mine/mine', { cookie: owner.cookie })).status).toBe(200);

    const frozen = await api.call('POST', '/api/v1/apps/mine/mine/freeze', { cookie: owner.cookie });
    expect(frozen.status).toBe(200);
    expect((await list()).find((a) => a['name'] === 'mine')).toMatchObject({ frozen: true });

    const sync = await api.call<Json>('POST', '/api/v1/apps/mine/mine/sync', { cookie: owner.cookie });
    expect(sync.status).toBe(200);
    const status = await api.call<Json>('GET', '/api/v1/apps/mine/mine/status', { cookie: owner.cookie });
    expect(status.body['pending_operation']).toBe(sync.body['operation_id']);

    expect((await api.call('DELETE', '/api/v1/apps/mine/mine', { cookie: owner.cookie })).status).toBe(200);
    // No operator runs here, so nothing holds a finalizer: the App is gone at once.
    expect((await list()).map((a) => a['name'])).not.toContain('mine');
  });
});
