/**
 * GET /api/v1/apps/adoptable and POST /api/v1/apps/adopt against a real kube-apiserver: unmanaged Deployments are
 * listed with whether their selector matches the rendered labels; a non-matching selector is 409, an absent or managed
 * workload 404, bad bodies 400, and nothing is written. Adopting a matching one would create an image-source App,
 * which answers 400 until image sources have a driver (the success path, audited app.adopt, returns with them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGED_LABEL } from '../../src/core/app-schema.ts';
import { type AppResources, signUpMember, startOrgApi, type TestApi, type TestUser } from './api-support.ts';

type Json = Record<string, unknown>;
const rendered = (name: string) => ({
  'app.kubernetes.io/name': name,
  'app.kubernetes.io/instance': name,
  'app.kubernetes.io/managed-by': 'svc',
});

describe('adopt API', () => {
  let api: TestApi;
  let kube: AppResources;
  let owner: TestUser;
  let viewer: TestUser;
  let orgNs: string;
  let dest: string;

  beforeAll(async () => {
    const started = await startOrgApi('adopt');
    ({ api, kube, owner, orgNs } = started);
    viewer = await signUpMember(api, owner, started.orgId, 'viewer', 'viewer');
    dest = `legacy-${started.suffix}`;
    await kube.deployment(dest, 'shop', rendered('shop'));
    await kube.deployment(dest, 'old', { app: 'old' });
    await kube.deployment(dest, 'managed', rendered('managed'), { [MANAGED_LABEL]: 'managed' });
  });
  afterAll(async () => api?.close());

  it('lists unmanaged workloads with whether they can be adopted', async () => {
    const res = await api.call<{ workloads: Json[] }>('GET', `/api/v1/apps/adoptable?namespace=${dest}`, {
      cookie: viewer.cookie,
    });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.workloads.map((w) => [w['name'], w]));
    expect(Object.keys(byName).sort()).toEqual(['old', 'shop']);
    expect(byName['shop']).toMatchObject({
      kind: 'Deployment',
      namespace: dest,
      cluster: '',
      replicas: 2,
      images: ['registry.example.test/team/shop:1.4.2'],
      adoptable: true,
    });
    expect(byName['old']).toMatchObject({ adoptable: false });
    expect((await api.call('GET', '/api/v1/apps/adoptable', { cookie: viewer.cookie })).status).toBe(400);
    expect((await api.call('GET', '/api/v1/apps/adoptable?namespace=Bad_NS', { cookie: viewer.cookie })).status).toBe(
      400,
    );
  });

  it('refuses to adopt a matching Deployment while image sources have no driver (400), writing nothing', async () => {
    const body = { cluster: '', namespace: dest, name: 'shop', kind: 'Deployment' };
    expect((await api.call('POST', '/api/v1/apps/adopt', { cookie: viewer.cookie, body })).status).toBe(403);
    const res = await api.call<Json>('POST', '/api/v1/apps/adopt', { cookie: owner.cookie, body });
    expect(res).toMatchObject({ status: 400, body: { error: 'image sources are not supported yet' } });
    expect(await kube.get(orgNs, 'shop')).toBeUndefined();
    const audit = await api.call<{ entries: Json[] }>('GET', '/api/v1/audit', { cookie: owner.cookie });
    expect(audit.body.entries.find((e) => e['action'] === 'app.adopt')).toBeUndefined();
  });

  it('refuses a non-matching selector (409), absent or managed workloads (404), and bad bodies (400)', async () => {
    const before = await kube.names(orgNs);
    const mismatch = await api.call('POST', '/api/v1/apps/adopt', {
      cookie: owner.cookie,
      body: { namespace: dest, name: 'old', kind: 'Deployment' },
    });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body).toEqual({ error: expect.stringContaining('selector') });
    for (const name of ['nope', 'managed']) {
      const res = await api.call('POST', '/api/v1/apps/adopt', {
        cookie: owner.cookie,
        body: { namespace: dest, name, kind: 'Deployment' },
      });
      expect(res.status, name).toBe(404);
    }
    expect(
      (
        await api.call('POST', '/api/v1/apps/adopt', {
          cookie: owner.cookie,
          body: { namespace: dest, name: 'shop', kind: 'StatefulSet' },
        })
      ).status,
    ).toBe(404);
    for (const body of [
      {},
      { namespace: dest, name: 'old' },
      { namespace: dest, name: 'old', kind: 'Pod' },
      { namespace: dest, name: 'Old!', kind: 'Deployment' },
      { namespace: dest, name: 'old', kind: 'Deployment', image: 'x' },
      { namespace: dest, name: 'old', kind: 'Deployment', cluster: 'unregistered' },
    ]) {
      const res = await api.call('POST', '/api/v1/apps/adopt', { cookie: owner.cookie, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(await kube.names(orgNs)).toEqual(before);
  });
});
