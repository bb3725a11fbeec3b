/**
 * /api/v1/apps CRUD over HTTP against a real kube-apiserver with the App CRD: list, create (201/409/400), get (404 on
 * namespace mismatch), clone, preview, delete; the App resource written and the audit entry; API keys of each
 * ceiling and scope; cross-org isolation; bad input writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppResources,
  auditEntries,
  createOrg,
  mintKey,
  signUp,
  signUpMember,
  startOrgApi,
  type TestApi,
  type TestUser,
} from './api-support.ts';

type Json = Record<string, unknown>;
const REPO = 'https://git.example.test/team/web.git';
const gitApp = (name: string, namespace = 'web', extra: Json = {}) => ({
  name,
  namespace,
  source: { type: 'Git', git: { repoURL: REPO, path: 'deploy' } },
  ...extra,
});

describe('apps API', () => {
  let api: TestApi;
  let kube: AppResources;
  let owner: TestUser;
  let viewer: TestUser;
  let contributor: TestUser;
  let other: TestUser;
  let orgNs: string;
  let otherNs: string;

  const audit = (action: string, name: string) => auditEntries(api, owner, action, name);

  beforeAll(async () => {
    const started = await startOrgApi('apps');
    ({ api, kube, owner, orgNs } = started);
    const { orgId, suffix } = started;
    viewer = await signUpMember(api, owner, orgId, 'viewer', 'viewer');
    contributor = await signUpMember(api, owner, orgId, 'contrib', 'contributor');
    other = await signUp(api, 'other');
    await createOrg(api, other, `apps-other-${suffix}`);
    otherNs = `org-apps-other-${suffix}`;
  });
  afterAll(async () => api?.close());

  it('creates the org namespace when the org is created', async () => {
    const namespace = await kube.objects.get({ apiVersion: 'v1', kind: 'Namespace', name: orgNs });
    expect(namespace?.metadata.name).toBe(orgNs);
    expect(await kube.names(orgNs)).toEqual([]);
  });

  it('creates an App resource (201), audits app.create, and refuses a duplicate name (409)', async () => {
    const res = await api.call<Json>('POST', '/api/v1/apps', {
      cookie: contributor.cookie,
      body: gitApp('web', 'web', { sync_policy: { automated: true, prune: true } }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'web',
      namespace: 'web',
      cluster: '',
      source: { type: 'Git', git: { repoURL: REPO, path: 'deploy' } },
      sync_status: 'Unknown',
      health: 'Unknown',
      health_reason: '',
      revision: '',
      url: '',
      resources: [],
      conditions: [],
    });
    expect(Date.parse(String(res.body['updated_at']))).not.toBeNaN();
    const stored = await kube.get(orgNs, 'web');
    expect(stored?.spec).toMatchObject({
      source: { type: 'Git', git: { repoURL: REPO, path: 'deploy' } },
      destination: { namespace: 'web', cluster: '' },
      syncPolicy: { automated: true, prune: true },
    });
    expect(stored?.spec.operation).toBeUndefined();
    const entries = await audit('app.create', 'web');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      user_id: contributor.id,
      resource_type: 'app',
      resource_id: stored?.metadata.uid,
      details: { namespace: 'web', cluster: '' },
    });

    const dup = await api.call('POST', '/api/v1/apps', { cookie: owner.cookie, body: gitApp('web', 'other-ns') });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: expect.stringContaining('web') });
    expect((await kube.get(orgNs, 'web'))?.spec.destination.namespace).toBe('web');
  });

  it('creates Image and HelmChart Apps; refuses a Catalog source naming no template and unregistered registries', async () => {
    const image = { type: 'Image', image: { repository: 'nginx', tag: '1.27' } };
    const created = await api.call<Json>('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: { name: 'img', namespace: 'web', source: image },
    });
    expect(created).toMatchObject({
      status: 201,
      body: { name: 'img', source: { type: 'Image', image: image.image } },
    });
    expect((await kube.get(orgNs, 'img'))?.spec.source.image).toMatchObject({ ...image.image, tagPolicy: 'Pinned' });
    const unregistered = { type: 'Image', image: { registryRef: 'nope', repository: 'team/web', tag: '1' } };
    for (const path of ['/api/v1/apps', '/api/v1/apps/preview']) {
      const res = await api.call<Json>('POST', path, {
        cookie: owner.cookie,
        body: { name: 'img-ref', namespace: 'web', source: unregistered },
      });
      expect(res, path).toMatchObject({
        status: 422,
        body: { error: 'source.image.registryRef: registry "nope" is not registered in this organization' },
      });
    }
    // HelmChart has a driver (src/engine/sources/helm): created, its version range defaulting to any version.
    const chart = { type: 'HelmChart', helmChart: { repoURL: 'https://charts.example.test/stable', chart: 'c' } };
    const charted = await api.call<Json>('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: { name: 'chart', namespace: 'web', source: chart },
    });
    expect(charted).toMatchObject({ status: 201, body: { name: 'chart', source: { type: 'HelmChart' } } });
    expect((await kube.get(orgNs, 'chart'))?.spec.source.helmChart).toMatchObject({ chart: 'c', version: '*' });
    const catalog = { type: 'Catalog', catalog: { template: 't' } };
    const refused = await api.call('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: { name: 'cat', namespace: 'web', source: catalog },
    });
    // A Catalog source naming a template the org catalog does not have: 422 (api-catalog.test.ts covers the rest).
    expect(refused).toMatchObject({ status: 422, body: { error: expect.stringContaining('not in the org catalog') } });
    expect(await kube.get(orgNs, 'img-ref')).toBeUndefined();
    expect(await kube.get(orgNs, 'cat')).toBeUndefined();
    for (const name of ['img', 'chart']) {
      expect((await api.call('DELETE', `/api/v1/apps/web/${name}`, { cookie: owner.cookie })).status).toBe(200);
    }
  });

  it('refuses bad create bodies with 400 and writes nothing', async () => {
    const before = await kube.names(orgNs);
    const bad: unknown[] = [
      {},
      { namespace: 'web', source: { type: 'Git', git: { repoURL: REPO } } },
      { name: 'x1', source: { type: 'Git', git: { repoURL: REPO } } },
      { name: 'x2', namespace: 'web' },
      { name: 'Bad_Name', namespace: 'web', source: { type: 'Git', git: { repoURL: REPO } } },
      { name: 'x3', namespace: 'Web!', source: { type: 'Git', git: { repoURL: REPO } } },
      { name: 'x'.repeat(64), namespace: 'web', source: { type: 'Git', git: { repoURL: REPO } } },
      { name: 7, namespace: 'web', source: { type: 'Git', git: { repoURL: REPO } } },
      { name: 'x4', namespace: 'web', source: { type: 'Git' } },
      { name: 'x5', namespace: 'web', source: { type: 'Git', git: {} } },
      { name: 'x6', namespace: 'web', source: { type: 'Image', image: { repository: 'nginx' } } },
      {
        name: 'x7',
        namespace: 'web',
        source: { type: 'Git', git: { repoURL: REPO }, image: { repository: 'a', tag: 'b' } },
      },
      { name: 'x8', namespace: 'web', source: { type: 'HelmChart', helmChart: { repoURL: REPO } } },
      { name: 'x9', namespace: 'web', source: { type: 'Catalog', catalog: { template: 'Not_A_Label' } } },
      { name: 'x10', namespace: 'web', source: { type: 'Svn', svn: {} } },
      { name: 'x11', namespace: 'web', source: { type: 'Git', git: { repoURL: REPO, color: 'red' } } },
      { name: 'x12', namespace: 'web', colour: 'red', source: { type: 'Git', git: { repoURL: REPO } } },
      {
        name: 'x13',
        namespace: 'web',
        sync_policy: { automated: 'yes' },
        source: { type: 'Git', git: { repoURL: REPO } },
      },
      '[]',
      '{"name": ',
    ];
    for (const body of bad) {
      const res = await api.call('POST', '/api/v1/apps', { cookie: owner.cookie, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    // A cluster name the document accepts, but no registered cluster: 422.
    const nowhere = await api.call('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: { name: 'x14', namespace: 'web', cluster: 'nowhere', source: { type: 'Git', git: { repoURL: REPO } } },
    });
    expect(nowhere).toMatchObject({ status: 422, body: { error: expect.stringContaining('not registered') } });
    // A notification URL the outbound policy refuses by its form (docs/api.md): a link-local address, 422.
    const linkLocal = await api.call('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: {
        name: 'x15',
        namespace: 'web',
        source: { type: 'Git', git: { repoURL: REPO } },
        notifications: { chat: { webhookURL: 'http://169.254.169.254/hook', onSyncFailure: true } },
      },
    });
    expect(linkLocal).toMatchObject({ status: 422, body: { error: expect.any(String) } });
    const huge = await api.call('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: { ...gitApp('huge'), pad: 'x'.repeat(1024 * 1024) },
    });
    expect(huge.status).toBe(413);
    expect(await kube.names(orgNs)).toEqual(before);
  });

  it('lists and gets apps; another namespace or another org reads as 404', async () => {
    const list = await api.call<{ apps: Json[] }>('GET', '/api/v1/apps', { cookie: viewer.cookie });
    expect(list.status).toBe(200);
    expect(list.body.apps.map((a) => a['name'])).toEqual(['web']);
    const one = await api.call<Json>('GET', '/api/v1/apps/web/web', { cookie: viewer.cookie });
    expect(one).toMatchObject({ status: 200, body: { name: 'web', namespace: 'web' } });
    expect((await api.call('GET', '/api/v1/apps/other-ns/web', { cookie: viewer.cookie })).status).toBe(404);
    expect((await api.call('GET', '/api/v1/apps/web/nope', { cookie: viewer.cookie })).status).toBe(404);

    // The other org sees nothing of ours, cannot read, change or delete it, and its own list is empty.
    const theirs = await api.call<{ apps: Json[] }>('GET', '/api/v1/apps', { cookie: other.cookie });
    expect(theirs.body.apps).toEqual([]);
    for (const [method, path] of [
      ['GET', '/api/v1/apps/web/web'],
      ['GET', '/api/v1/apps/web/web/status'],
      ['GET', '/api/v1/apps/web/web/history'],
      ['GET', '/api/v1/apps/web/web/events'],
      ['POST', '/api/v1/apps/web/web/sync'],
      ['POST', '/api/v1/apps/web/web/freeze'],
      ['DELETE', '/api/v1/apps/web/web'],
    ] as const) {
      const res = await api.call(method, path, { cookie: other.cookie });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const otherKey = await mintKey(api, { cookie: other.cookie }, { role: 'admin' });
    expect((await api.call('GET', '/api/v1/apps/web/web', { key: otherKey.key })).status).toBe(404);
    // Same name in the other org is its own App, in its own namespace.
    const mine = await api.call('POST', '/api/v1/apps', { cookie: other.cookie, body: gitApp('web') });
    expect(mine.status).toBe(201);
    expect(await kube.names(otherNs)).toEqual(['web']);
    expect((await kube.get(orgNs, 'web'))?.metadata.annotations?.['cd.svc.space/created-by']).toBe(contributor.id);
  });

  it('enforces roles and key ceilings and scopes on app routes', async () => {
    expect((await api.call('POST', '/api/v1/apps', { cookie: viewer.cookie, body: gitApp('v1') })).status).toBe(403);
    const read = await mintKey(api, { cookie: owner.cookie }, { role: 'read' });
    const sync = await mintKey(api, { cookie: owner.cookie }, { role: 'sync' });
    const admin = await mintKey(api, { cookie: owner.cookie }, { role: 'admin' });
    const scoped = await mintKey(
      api,
      { cookie: owner.cookie },
      { role: 'admin', scope: 'deployment', scope_id: '/api' },
    );
    expect((await api.call('GET', '/api/v1/apps', { key: read.key })).status).toBe(200);
    expect((await api.call('POST', '/api/v1/apps', { key: read.key, body: gitApp('k1') })).status).toBe(403);
    expect((await api.call('POST', '/api/v1/apps', { key: sync.key, body: gitApp('k2') })).status).toBe(403);
    expect((await api.call('POST', '/api/v1/apps', { key: admin.key, body: gitApp('k3') })).status).toBe(201);
    expect((await api.call('POST', '/api/v1/apps', { key: scoped.key, body: gitApp('k4') })).status).toBe(403);
    expect((await api.call('POST', '/api/v1/apps', { key: scoped.key, body: gitApp('k5', 'api') })).status).toBe(201);
    // A deployment-scoped key lists only its deployment's apps and cannot read others.
    const listed = await api.call<{ apps: Json[] }>('GET', '/api/v1/apps', { key: scoped.key });
    expect(listed.body.apps.map((a) => a['name'])).toEqual(['k5']);
    expect((await api.call('GET', '/api/v1/apps/web/web', { key: scoped.key })).status).toBe(403);
    expect(await kube.get(orgNs, 'k1')).toBeUndefined();
    expect(await kube.get(orgNs, 'k4')).toBeUndefined();
    expect((await audit('app.create', 'k3'))[0]?.['user_id']).toBe(owner.id);
  });

  it('clones source, sync policy and destination onto a new unsynced App (201)', async () => {
    await kube.setStatus(orgNs, 'web', { syncStatus: 'Synced', healthStatus: 'Healthy', revision: 'abc123' });
    const res = await api.call<Json>('POST', '/api/v1/apps/web/web/clone', {
      cookie: contributor.cookie,
      body: { name: 'web-copy', namespace: 'staging' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'web-copy', namespace: 'staging', sync_status: 'Unknown', revision: '' });
    const copy = await kube.get(orgNs, 'web-copy');
    expect(copy?.spec).toMatchObject({
      source: { type: 'Git', git: { repoURL: REPO, path: 'deploy' } },
      destination: { namespace: 'staging', cluster: '' },
      syncPolicy: { automated: true, prune: true },
    });
    expect(copy?.status).toBeUndefined();
    expect((await audit('app.clone', 'web-copy'))[0]?.['details']).toMatchObject({
      from: 'web/web',
      namespace: 'staging',
    });
    const same = await api.call<Json>('POST', '/api/v1/apps/web/web/clone', {
      cookie: owner.cookie,
      body: { name: 'web-copy2' },
    });
    expect(same.body['namespace']).toBe('web');
    for (const body of [
      {},
      { name: 'Bad!' },
      { name: 'c1', extra: 1 },
      { name: 'web' },
      { name: 'c2', namespace: 3 },
    ]) {
      const r = await api.call('POST', '/api/v1/apps/web/web/clone', { cookie: owner.cookie, body });
      expect(r.status, JSON.stringify(body)).toBe(JSON.stringify(body) === '{"name":"web"}' ? 409 : 400);
    }
    expect(
      (await api.call('POST', '/api/v1/apps/web/web/clone', { cookie: viewer.cookie, body: { name: 'c3' } })).status,
    ).toBe(403);
  });

  it('previews a payload without writing anything; app= adds the current spec', async () => {
    const before = await kube.names(orgNs);
    const res = await api.call<Json>('POST', '/api/v1/apps/preview?app=web', {
      cookie: owner.cookie,
      body: gitApp('web', 'web', { sync_policy: { automated: false } }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: true,
      resolved: { image: '', tag: '', digest: '', ref: 'refs/heads/main' },
      spec: { source: { type: 'Git' }, destination: { namespace: 'web' }, syncPolicy: { automated: false } },
      current: { syncPolicy: { automated: true, prune: true } },
    });
    const fresh = await api.call<Json>('POST', '/api/v1/apps/preview', {
      cookie: owner.cookie,
      body: gitApp('new-one'),
    });
    expect(fresh.status).toBe(200);
    expect(fresh.body['current']).toBeUndefined();
    expect((await api.call('POST', '/api/v1/apps/preview', { cookie: owner.cookie, body: { name: 'x' } })).status).toBe(
      400,
    );
    expect((await api.call('POST', '/api/v1/apps/preview', { cookie: viewer.cookie, body: gitApp('p') })).status).toBe(
      403,
    );
    expect(await kube.names(orgNs)).toEqual(before);
  });

  it('deletes an App (audited app.delete); it is then gone', async () => {
    expect((await api.call('DELETE', '/api/v1/apps/staging/web-copy', { cookie: viewer.cookie })).status).toBe(403);
    expect((await api.call('DELETE', '/api/v1/apps/web/web-copy', { cookie: owner.cookie })).status).toBe(404);
    const res = await api.call('DELETE', '/api/v1/apps/staging/web-copy', { cookie: owner.cookie });
    expect(res).toMatchObject({ status: 200, body: { deleted: true, name: 'web-copy', namespace: 'staging' } });
    expect(await kube.get(orgNs, 'web-copy')).toBeUndefined();
    expect(await audit('app.delete', 'web-copy')).toHaveLength(1);
    expect((await api.call('GET', '/api/v1/apps/staging/web-copy', { cookie: owner.cookie })).status).toBe(404);
  });
});
