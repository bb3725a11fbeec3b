/**
 * Promote across two registries (contract §4.2 rule 8, §7 502) with the real operator: the staging App's applied
 * digest is verified present on the production App's registry (token auth there, anonymous on staging), then
 * written onto the production App as a Deploy pinned byte-equal with the tag it came from; the operator applies
 * exactly that digest from the production registry. A digest absent there is 502 and writes nothing; a Git target
 * is a scope mismatch (409). A target App waiting for its first promote (its tag not pushed yet, no automated sync)
 * shows why it cannot be compared but opens no incident (docs/incidents.md) until a sync someone asks for fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Registry, startRegistry, waitUntil } from '../harness/index.ts';
import { auditEntries } from './api-support.ts';
import { type ImageSuite, startImageSuite } from './image-support.ts';
import { getApp, getObject, waitForApp } from './operator-support.ts';

describe('promote across registries', () => {
  let suite: ImageSuite;
  let staging: Registry;
  let prod: Registry;
  const dests: Record<string, string> = {};

  beforeAll(async () => {
    [staging, prod] = await Promise.all([
      startRegistry(),
      startRegistry({ token: { user: 'svc', password: 'prod-secret' } }),
    ]);
    suite = await startImageSuite('promo');
    await suite.addRegistry('staging', staging);
    await suite.addRegistry('prod', prod);
  });
  afterAll(async () => {
    await suite?.stop();
    await Promise.all([staging?.stop(), prod?.stop()]);
  });

  it('promotes the applied digest byte-equal onto the target, which the operator pulls from its own registry', async () => {
    // The same image pushed to both registries has the same digest.
    const built = await staging.pushImage('svc/shop', '1.4', { content: 'shop 1.4' });
    const mirrored = await prod.pushImage('svc/shop', '1.4', { content: 'shop 1.4' });
    expect(mirrored.digest).toBe(built.digest);
    const current = await prod.pushImage('svc/shop', '1.3', { content: 'shop 1.3' });

    dests['staging'] = await suite.imageApp('shop-staging', {
      registryRef: 'staging',
      repository: 'svc/shop',
      tag: '1.4',
    });
    dests['prod'] = await suite.imageApp('shop-prod', { registryRef: 'prod', repository: 'svc/shop', tag: '1.3' });
    await suite.post(dests['staging'], 'shop-staging', 'sync');
    await suite.post(dests['prod'], 'shop-prod', 'sync');
    await suite.settled('shop-staging', built.digest);
    await suite.settled('shop-prod', current.digest);

    const res = await suite.post(dests['staging'], 'shop-staging', 'promote?to=shop-prod');
    expect(res).toMatchObject({
      status: 200,
      body: { from: 'shop-staging', to: 'shop-prod', digest: built.digest, tag: '1.4' },
    });
    const target = await getApp(suite.org.orgNs, 'shop-prod');
    expect(target?.spec.operation).toMatchObject({
      kind: 'Deploy',
      revision: built.digest,
      id: res.body['operation_id'],
    });
    expect(target?.spec.source.image?.tag).toBe('1.4');
    const promoted = await suite.settled('shop-prod', built.digest);
    expect(promoted.status?.previousRevisions).toEqual([current.digest]);
    const deployment = await getObject('apps/v1', 'Deployment', dests['prod'], 'shop-prod');
    const containers = (
      (deployment?.['spec'] ?? {}) as { template: { spec: { containers: Array<{ image: string }> } } }
    ).template.spec.containers;
    expect(containers[0]?.image).toBe(`${prod.host}/svc/shop@${built.digest}`);
    const [audit] = await auditEntries(suite.org.api, suite.org.owner, 'app.promote', 'shop-prod');
    expect(audit).toMatchObject({
      user_id: suite.org.owner.id,
      details: { from: 'shop-staging', digest: built.digest, operation_id: res.body['operation_id'] },
    });
  });

  it('answers 502 when the digest is absent on the target registry, and 409 for a Git target; writes nothing', async () => {
    const fresh = await staging.pushImage('svc/shop', '2.0', { content: 'shop 2.0 staging only' });
    const deploy = await suite.post(dests['staging'] as string, 'shop-staging', 'deploy', { tag: '2.0' });
    expect(deploy.status).toBe(200);
    await suite.settled('shop-staging', fresh.digest);
    const before = (await getApp(suite.org.orgNs, 'shop-prod'))?.spec;

    const absent = await suite.post(dests['staging'] as string, 'shop-staging', 'promote?to=shop-prod');
    expect(absent).toMatchObject({
      status: 502,
      body: { error: `digest ${fresh.digest} is not present in ${prod.host}/svc/shop` },
    });
    const git = await suite.org.api.call('POST', '/api/v1/apps', {
      cookie: suite.org.owner.cookie,
      body: {
        name: 'shop-git',
        namespace: dests['prod'],
        source: { type: 'Git', git: { repoURL: 'https://git.example.test/shop.git' } },
      },
    });
    expect(git.status).toBe(201);
    const mismatch = await suite.post(dests['staging'] as string, 'shop-staging', 'promote?to=shop-git');
    expect(mismatch).toMatchObject({
      status: 409,
      body: { error: 'promote needs image-source apps on both sides (scope mismatch)' },
    });
    expect((await getApp(suite.org.orgNs, 'shop-prod'))?.spec).toEqual(before);
    expect(await auditEntries(suite.org.api, suite.org.owner, 'app.promote', 'shop-prod')).toHaveLength(1);
  });

  it('a promote target waiting for its first promote (tag not pushed, no automated sync) opens no incident until a sync is asked for', async () => {
    type Incident = { id: string; cause: string; opened_at: string; app: { name: string } | null };
    const incidents = async (app: string) =>
      (
        await suite.org.api.call<{ incidents: Incident[] }>('GET', `/api/v1/incidents?state=open&app=${app}`, {
          cookie: suite.org.owner.cookie,
        })
      ).body.incidents;
    const waiting = await suite.imageApp('shop-next', { registryRef: 'prod', repository: 'svc/shop', tag: '3.0' });
    // The operator observes it and says why it cannot be compared: the tag does not exist yet.
    const observed = await waitForApp(suite.org.orgNs, 'shop-next', 'SyncError SourceFailed', (a) =>
      Boolean(a.status?.conditions?.some((c) => c.type === 'SyncError' && c.status === 'True')),
    );
    expect(observed.status?.conditions?.find((c) => c.type === 'SyncError')).toMatchObject({
      reason: 'SourceFailed',
      message: expect.stringContaining('3.0'),
    });
    // A positive control for the same detector: an automated App with a missing tag, failing after the one above,
    // opens its SyncFailed incident; the detector observes changes in the order they came, so by then it has
    // observed shop-next's failure too.
    await suite.imageApp(
      'shop-auto',
      { registryRef: 'prod', repository: 'svc/shop', tag: 'never-pushed' },
      { sync_policy: { automated: true } },
    );
    await waitUntil(async () => (await incidents('shop-auto')).find((i) => i.cause === 'SyncFailed'), {
      what: 'the automated App’s SyncFailed incident',
      timeoutMs: 60_000,
    });
    expect(await incidents('shop-next')).toEqual([]);

    // Someone asks for a sync, and it fails: that is an incident.
    const asked = new Date().toISOString();
    const sync = await suite.post(waiting, 'shop-next', 'sync');
    expect(sync.status).toBe(200);
    const opened = await waitUntil(async () => (await incidents('shop-next')).find((i) => i.cause === 'SyncFailed'), {
      what: 'shop-next’s SyncFailed incident after its failed sync',
      timeoutMs: 60_000,
    });
    expect(opened.opened_at >= asked).toBe(true);
  });
  it('finds an incident’s App, and a promote target, by name alone: whatever its namespace, 404 when none', async () => {
    const res = await suite.org.api.call<Record<string, unknown>>('POST', '/api/v1/incidents', {
      cookie: suite.org.owner.cookie,
      body: { title: 'checkout errors', app: 'shop-staging', severity: 'critical', details: { rate: 0.12 } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      app: { name: 'shop-staging', namespace: dests['staging'], cluster: '' },
      cause: 'External',
      source: 'external',
      severity: 'critical',
      evidence: { details: { rate: 0.12 } },
      created: true,
    });
    const unknown = await suite.org.api.call('POST', '/api/v1/incidents', {
      cookie: suite.org.owner.cookie,
      body: { title: 'x', app: 'no-such-app' },
    });
    expect(unknown.status).toBe(404);
    // promote?to= names a target the same way (docs/api.md): by name, 404 when the org has no such App.
    const nowhere = await suite.post(dests['staging'] as string, 'shop-staging', 'promote?to=no-such-app');
    expect(nowhere).toMatchObject({ status: 404, body: { error: 'target app no-such-app not found' } });
  });
});
