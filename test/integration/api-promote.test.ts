/**
 * Promote and preview against a real OCI registry (Debian's docker-registry from the harness): preview resolves an
 * image tag to its digest; promote copies the source app's applied digest onto the target as a Deploy with that
 * exact digest when the target repository has it, and answers 502 when it does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Registry, startRegistry } from '../harness/index.ts';
import { type AppResources, startOrgApi, type TestApi, type TestUser } from './api-support.ts';

type Json = Record<string, unknown>;

describe('promote and preview with a registry', () => {
  let api: TestApi;
  let kube: AppResources;
  let registry: Registry;
  let owner: TestUser;
  let ns: string;
  let staging: string;
  let prod: string;
  let digest: string;

  beforeAll(async () => {
    registry = await startRegistry();
    digest = (await registry.pushImage('team/shop', '1.0', { content: 'v1' })).digest;
    const started = await startOrgApi('promo');
    ({ api, kube, owner, orgNs: ns } = started);
    const { suffix } = started;
    staging = `staging-${suffix}`;
    prod = `prod-${suffix}`;
    for (const [name, namespace] of [
      ['shop-staging', staging],
      ['shop-prod', prod],
    ] as const) {
      const res = await api.call('POST', '/api/v1/apps', {
        cookie: owner.cookie,
        body: {
          name,
          namespace,
          source: { type: 'Image', image: { repository: `${registry.host}/team/shop`, tag: '1.0' } },
        },
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await api?.close();
    await registry?.stop();
  });

  it('preview resolves the tag to the registry digest and writes nothing', async () => {
    const res = await api.call<Json>('POST', '/api/v1/apps/preview', {
      cookie: owner.cookie,
      body: {
        name: 'shop-new',
        namespace: staging,
        source: { type: 'Image', image: { repository: `${registry.host}/team/shop`, tag: '1.0' } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body['resolved']).toEqual({
      image: `${registry.host}/team/shop`,
      tag: '1.0',
      digest,
      ref: `${registry.host}/team/shop@${digest}`,
    });
    expect(await kube.get(ns, 'shop-new')).toBeUndefined();
  });

  it('promotes the applied digest byte-for-byte as a Deploy operation, audited app.promote', async () => {
    await kube.setStatus(ns, 'shop-staging', { revision: digest, syncStatus: 'Synced', healthStatus: 'Healthy' });
    const res = await api.call<Json>('POST', `/api/v1/apps/${staging}/shop-staging/promote?to=shop-prod`, {
      cookie: owner.cookie,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ from: 'shop-staging', to: 'shop-prod', digest, operation_id: expect.any(String) });
    const target = await kube.get(ns, 'shop-prod');
    expect(target?.spec.operation).toMatchObject({
      kind: 'Deploy',
      revision: digest,
      id: res.body['operation_id'],
      triggeredBy: owner.id,
    });
    const again = await api.call('POST', `/api/v1/apps/${staging}/shop-staging/promote?to=shop-prod`, {
      cookie: owner.cookie,
    });
    expect(again.status).toBe(409);
    const audit = await api.call<{ entries: Json[] }>('GET', '/api/v1/audit', { cookie: owner.cookie });
    expect(audit.body.entries.find((e) => e['action'] === 'app.promote')).toMatchObject({
      resource_name: 'shop-prod',
      details: { from: 'shop-staging', digest },
    });
  });

  it('answers 502 when the target repository lacks the digest, writing nothing', async () => {
    const absent = `sha256:${'b'.repeat(64)}`;
    await kube.setStatus(ns, 'shop-prod', {
      operationState: { kind: 'Deploy', id: (await kube.get(ns, 'shop-prod'))?.spec.operation?.id, phase: 'Succeeded' },
    });
    await kube.setStatus(ns, 'shop-staging', { revision: absent });
    const before = (await kube.get(ns, 'shop-prod'))?.spec.operation?.id;
    const res = await api.call('POST', `/api/v1/apps/${staging}/shop-staging/promote?to=shop-prod`, {
      cookie: owner.cookie,
    });
    expect(res.status).toBe(502);
    expect((await kube.get(ns, 'shop-prod'))?.spec.operation?.id).toBe(before);
  });
});
