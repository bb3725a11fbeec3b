/**
 * Preview and promote of image sources while image sources have no driver: preview refuses an Image payload like
 * create does (400, nothing written), and promote between image Apps (created directly on the cluster, as the API
 * cannot create them yet) is refused with 409 because no image App has an applied digest. The registry-backed
 * answers (the digest resolved by preview, a promoted digest, 502 when the target registry lacks it) need an App
 * the image operator has synced; they return with image sources (this file wrote that status by hand before).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppResources, startOrgApi, type TestApi, type TestUser } from './api-support.ts';

describe('promote and preview of image sources before they have a driver', () => {
  let api: TestApi;
  let kube: AppResources;
  let owner: TestUser;
  let ns: string;
  let staging: string;
  let prod: string;

  beforeAll(async () => {
    const started = await startOrgApi('promo');
    ({ api, kube, owner, orgNs: ns } = started);
    staging = `staging-${started.suffix}`;
    prod = `prod-${started.suffix}`;
    for (const [name, namespace] of [
      ['shop-staging', staging],
      ['shop-prod', prod],
    ] as const) {
      await kube.createApp(ns, name, {
        source: { type: 'Image', image: { repository: 'registry.example.test/team/shop', tag: '1.0' } },
        destination: { namespace, cluster: '' },
      });
    }
  });
  afterAll(async () => api?.close());

  it('preview refuses an image payload like create (400) and writes nothing', async () => {
    const res = await api.call('POST', '/api/v1/apps/preview', {
      cookie: owner.cookie,
      body: {
        name: 'shop-new',
        namespace: staging,
        source: { type: 'Image', image: { repository: 'registry.example.test/team/shop', tag: '1.0' } },
      },
    });
    expect(res).toMatchObject({ status: 400, body: { error: 'image sources are not supported yet' } });
    expect(await kube.get(ns, 'shop-new')).toBeUndefined();
  });

  it('promote answers 409 while the source App has no applied digest, writing nothing', async () => {
    const res = await api.call('POST', `/api/v1/apps/${staging}/shop-staging/promote?to=shop-prod`, {
      cookie: owner.cookie,
    });
    expect(res).toMatchObject({ status: 409, body: { error: expect.stringContaining('no applied image digest') } });
    expect((await kube.get(ns, 'shop-prod'))?.spec.operation).toBeUndefined();
  });
});
