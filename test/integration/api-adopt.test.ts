/**
 * GET /api/v1/apps/adoptable and POST /api/v1/apps/adopt (contract §4.2 rule 14) with the real operator and a real
 * registry: unmanaged Deployments are listed with whether they can be adopted; adopting a hand-made Deployment
 * that runs its image by digest creates an image App (its registry made the App's registryRef, its template
 * copied) with a Sync, and the operator's forced server-side apply takes its fields over without recreating a Pod
 * (same Pods, same ReplicaSet). A non-matching selector or container is 409, an absent or managed workload 404,
 * bad bodies 400, and nothing is written for them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGED_LABEL } from '../../src/core/app-schema.ts';
import { renderedLabels } from '../../src/render/index.ts';
import { type PushedImage, type Registry, startRegistry, waitUntil } from '../harness/index.ts';
import { auditEntries, signUpMember, type TestUser } from './api-support.ts';
import { type ImageSuite, startImageSuite } from './image-support.ts';
import { deleteNamespaces, getApp, getObject, managers, unique } from './operator-support.ts';

type Json = Record<string, unknown>;

describe('adopt', () => {
  let suite: ImageSuite;
  let registry: Registry;
  let pushed: PushedImage;
  let viewer: TestUser;
  const dest = unique('legacy');

  const pods = async () => {
    const list = await suite.org.kube.client.request<{ items: Array<{ metadata: { uid: string; labels?: Json } }> }>(
      `/api/v1/namespaces/${dest}/pods`,
      { query: { labelSelector: 'app.kubernetes.io/instance=shop' } },
    );
    return list.items.map((p) => p.metadata.uid).sort();
  };
  const replicaSets = async () => {
    const list = await suite.org.kube.client.request<{ items: Array<{ metadata: { name: string } }> }>(
      `/apis/apps/v1/namespaces/${dest}/replicasets`,
      { query: { labelSelector: 'app.kubernetes.io/instance=shop' } },
    );
    return list.items.map((r) => r.metadata.name).sort();
  };

  beforeAll(async () => {
    registry = await startRegistry();
    pushed = await registry.pushImage('team/shop', '1.4.2');
    suite = await startImageSuite('adopt');
    await suite.addRegistry('local', registry);
    viewer = await signUpMember(suite.org.api, suite.org.owner, suite.org.orgId, 'viewer', 'viewer');
    const kube = suite.org.kube;
    await kube.deployment(
      dest,
      'shop',
      renderedLabels('shop'),
      {},
      {
        name: 'shop',
        image: `${registry.host}/team/shop@${pushed.digest}`,
        resources: { requests: { cpu: '50m', memory: '64Mi' } },
      },
    );
    await kube.deployment(dest, 'old', { app: 'old' });
    await kube.deployment(dest, 'named', renderedLabels('named'));
    await kube.deployment(dest, 'managed', renderedLabels('managed'), { [MANAGED_LABEL]: 'managed' });
    await waitUntil(async () => (await pods()).length === 2 || undefined, { what: 'two Pods of shop' });
  });
  afterAll(async () => {
    await suite?.stop();
    await registry?.stop();
    await deleteNamespaces(dest);
  });

  it('lists unmanaged workloads with whether they can be adopted, and why not', async () => {
    const res = await suite.org.api.call<{ workloads: Json[] }>('GET', `/api/v1/apps/adoptable?namespace=${dest}`, {
      cookie: viewer.cookie,
    });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.workloads.map((w) => [w['name'], w]));
    expect(Object.keys(byName).sort()).toEqual(['named', 'old', 'shop']);
    expect(byName['shop']).toMatchObject({
      kind: 'Deployment',
      namespace: dest,
      cluster: '',
      replicas: 2,
      images: [`${registry.host}/team/shop@${pushed.digest}`],
      adoptable: true,
      reason: '',
    });
    expect(byName['old']).toMatchObject({ adoptable: false, reason: expect.stringContaining('selector') });
    expect(byName['named']).toMatchObject({
      adoptable: false,
      reason: expect.stringContaining('one container, named named'),
    });
    const call = (q: string) => suite.org.api.call('GET', `/api/v1/apps/adoptable${q}`, { cookie: viewer.cookie });
    expect((await call('')).status).toBe(400);
    expect((await call('?namespace=Bad_NS')).status).toBe(400);
  });

  it('adopts a hand-made Deployment: the operator takes its fields over without recreating a Pod', async () => {
    const podsBefore = await pods();
    const setsBefore = await replicaSets();
    const generation = (await getObject('apps/v1', 'Deployment', dest, 'shop'))?.metadata.generation;
    const body = { cluster: '', namespace: dest, name: 'shop', kind: 'Deployment' };
    expect((await suite.org.api.call('POST', '/api/v1/apps/adopt', { cookie: viewer.cookie, body })).status).toBe(403);
    const res = await suite.org.api.call<Json>('POST', '/api/v1/apps/adopt', { cookie: suite.org.owner.cookie, body });
    expect(res).toMatchObject({ status: 201, body: { name: 'shop', namespace: dest } });
    const app = await getApp(suite.org.orgNs, 'shop');
    expect(app?.spec.source.image).toEqual({
      registryRef: 'local',
      repository: 'team/shop',
      tag: pushed.digest,
      tagPolicy: 'Pinned',
      workload: {
        replicas: 2,
        port: 8080,
        resources: { requests: { cpu: '50m', memory: '64Mi' } },
        probe: { disabled: true },
      },
    });
    expect(app?.spec.operation).toMatchObject({ kind: 'Sync', triggeredBy: suite.org.owner.id });

    await suite.settled('shop', pushed.digest);
    const deployment = await getObject('apps/v1', 'Deployment', dest, 'shop');
    expect(managers(deployment)).toContain('svc-operator');
    expect(deployment?.metadata.labels?.[MANAGED_LABEL]).toBe('shop');
    // The template did not change: no new generation, no new ReplicaSet, the same Pods.
    expect(deployment?.metadata.generation).toBe(generation);
    expect(await pods()).toEqual(podsBefore);
    expect(await replicaSets()).toEqual(setsBefore);
    const [audit] = await auditEntries(suite.org.api, suite.org.owner, 'app.adopt', 'shop');
    expect(audit?.['details']).toMatchObject({ kind: 'Deployment', operation_id: app?.spec.operation?.id });
  });

  it('refuses what it cannot adopt (409), absent or managed workloads (404), bad bodies (400) and unregistered clusters (422), writing nothing', async () => {
    const names = () => suite.org.kube.names(suite.org.orgNs);
    const before = await names();
    const adopt = (body: Json) =>
      suite.org.api.call<Json>('POST', '/api/v1/apps/adopt', { cookie: suite.org.owner.cookie, body });
    for (const name of ['old', 'named']) {
      const res = await adopt({ namespace: dest, name, kind: 'Deployment' });
      expect(res.status, name).toBe(409);
      expect(res.body).toEqual({ error: expect.stringContaining('cannot be adopted') });
    }
    for (const name of ['nope', 'managed', 'shop']) {
      expect((await adopt({ namespace: dest, name, kind: 'Deployment' })).status, name).toBe(404);
    }
    expect((await adopt({ namespace: dest, name: 'shop', kind: 'StatefulSet' })).status).toBe(404);
    for (const body of [
      {},
      { namespace: dest, name: 'old' },
      { namespace: dest, name: 'old', kind: 'Pod' },
      { namespace: dest, name: 'Old!', kind: 'Deployment' },
      { namespace: dest, name: 'old', kind: 'Deployment', image: 'x' },
    ]) {
      expect((await adopt(body)).status, JSON.stringify(body)).toBe(400);
    }
    // A cluster name the document accepts, but no registered cluster: 422.
    const unregistered = await adopt({ namespace: dest, name: 'old', kind: 'Deployment', cluster: 'unregistered' });
    expect(unregistered).toMatchObject({ status: 422, body: { error: expect.stringContaining('not registered') } });
    expect(await names()).toEqual(before);
  });
});
