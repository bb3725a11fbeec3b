/**
 * /apps operation routes over HTTP against a real kube-apiserver: sync, deploy, rollback, restart, approve, scale,
 * promote, freeze/unfreeze write the App resource (spec.operation with a server UUID and the caller as triggeredBy;
 * 409 while one is pending), audit each call, and refuse bad bodies; status (with wait), events and history read
 * what the operator records (played here by writing the status subresource; test/integration/api-operator.test.ts
 * runs the real operator; the image-*.test.ts files run image Apps with it). Image Apps here are created through
 * the API and never synced: no operator runs in this file, so none has an applied digest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppResources,
  auditEntries,
  mintKey,
  signUpMember,
  startOrgApi,
  type TestApi,
  type TestUser,
} from './api-support.ts';

type Json = Record<string, unknown>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('app operations API', () => {
  let api: TestApi;
  let kube: AppResources;
  let owner: TestUser;
  let viewer: TestUser;
  let ns: string;
  /** Destination namespace, unique per run so events of other runs never mix in. */
  let d: string;

  const audit = (action: string, name: string) => auditEntries(api, owner, action, name);
  async function create(body: Json): Promise<void> {
    const res = await api.call('POST', '/api/v1/apps', { cookie: owner.cookie, body });
    expect(res.status).toBe(201);
  }

  beforeAll(async () => {
    const started = await startOrgApi('ops');
    ({ api, kube, owner, orgNs: ns } = started);
    d = `web-${started.suffix}`;
    viewer = await signUpMember(api, owner, started.orgId, 'viewer', 'viewer');
    await create({
      name: 'web',
      namespace: d,
      source: { type: 'Git', git: { repoURL: 'https://git.example.test/web.git' } },
    });
    for (const name of ['img', 'img-scale']) {
      await create({
        name,
        namespace: d,
        source: { type: 'Image', image: { repository: '127.0.0.1:1/team/img', tag: '1.0' } },
      });
    }
  });
  afterAll(async () => api?.close());

  it('sync writes spec.operation with a server UUID and the caller, audits it, and answers 409 while pending', async () => {
    const res = await api.call<Json>('POST', `/api/v1/apps/${d}/web/sync`, { cookie: owner.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: expect.any(String),
      name: 'web',
      operation_id: expect.stringMatching(UUID),
    });
    const op = (await kube.get(ns, 'web'))?.spec.operation;
    expect(op).toMatchObject({ kind: 'Sync', id: res.body['operation_id'], triggeredBy: owner.id });
    expect(op?.revision).toBeUndefined();
    expect(Date.parse(String(op?.initiatedAt))).not.toBeNaN();
    expect((await audit('app.sync', 'web'))[0]?.['details']).toMatchObject({ operation_id: res.body['operation_id'] });

    const again = await api.call('POST', `/api/v1/apps/${d}/web/sync`, { cookie: owner.cookie });
    expect(again.status).toBe(409);
    expect((await api.call('POST', `/api/v1/apps/${d}/web/restart`, { cookie: owner.cookie })).status).toBe(409);
    expect((await kube.get(ns, 'web'))?.spec.operation?.id).toBe(res.body['operation_id']);
    const status = await api.call<Json>('GET', `/api/v1/apps/${d}/web/status`, { cookie: viewer.cookie });
    expect(status.body['pending_operation']).toBe(res.body['operation_id']);

    await kube.completeOperation(ns, 'web', 'Succeeded');
    const next = await api.call<Json>('POST', `/api/v1/apps/${d}/web/sync`, { cookie: owner.cookie });
    expect(next.status).toBe(200);
    expect(next.body['operation_id']).not.toBe(res.body['operation_id']);
    await kube.completeOperation(ns, 'web', 'Succeeded');
  });

  it('lets exactly one of two racing operation requests win; the other gets 409', async () => {
    const [a, b] = await Promise.all([
      api.call<Json>('POST', `/api/v1/apps/${d}/web/sync`, { cookie: owner.cookie }),
      api.call<Json>('POST', `/api/v1/apps/${d}/web/restart`, { cookie: owner.cookie }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? a : b;
    expect((await kube.get(ns, 'web'))?.spec.operation?.id).toBe(winner.body['operation_id']);
    await kube.completeOperation(ns, 'web', 'Succeeded');
  });

  it('lets sync keys sync and refuses read keys and Viewers (403), writing nothing', async () => {
    const read = await mintKey(api, { cookie: owner.cookie }, { role: 'read' });
    const sync = await mintKey(api, { cookie: owner.cookie }, { role: 'sync', scope: 'deployment', scope_id: `/${d}` });
    const elsewhere = await mintKey(
      api,
      { cookie: owner.cookie },
      { role: 'sync', scope: 'deployment', scope_id: '/api' },
    );
    const before = (await kube.get(ns, 'web'))?.spec.operation?.id;
    expect((await api.call('POST', `/api/v1/apps/${d}/web/sync`, { key: read.key })).status).toBe(403);
    expect((await api.call('POST', `/api/v1/apps/${d}/web/sync`, { key: elsewhere.key })).status).toBe(403);
    expect((await api.call('POST', `/api/v1/apps/${d}/web/sync`, { cookie: viewer.cookie })).status).toBe(403);
    expect((await kube.get(ns, 'web'))?.spec.operation?.id).toBe(before);
    const ok = await api.call<Json>('POST', `/api/v1/apps/${d}/web/sync`, { key: sync.key });
    expect(ok.status).toBe(200);
    expect((await kube.get(ns, 'web'))?.spec.operation).toMatchObject({
      id: ok.body['operation_id'],
      triggeredBy: owner.id,
    });
    // Freezing needs deployment:manage, beyond a sync key.
    expect((await api.call('POST', `/api/v1/apps/${d}/web/freeze`, { key: sync.key })).status).toBe(403);
    await kube.completeOperation(ns, 'web', 'Succeeded');
  });

  it('refuses bodies on routes that take none, and malformed operation bodies, writing nothing', async () => {
    const before = (await kube.get(ns, 'web'))?.spec.operation?.id;
    const cases: Array<[string, unknown]> = [
      ['sync', { force: true }],
      ['restart', { x: 1 }],
      ['approve', { revision: 'x' }],
      ['freeze', { frozen: true }],
      ['unfreeze', []],
      ['rollback', {}],
      ['rollback', { revision: 5 }],
      ['rollback', { revision: 'abc', dryRun: true }],
      ['deploy', { tag: 5 }],
      ['deploy', { tag: '' }],
      ['deploy', { image: 'x' }],
      ['scale', {}],
      ['scale', { replicas: 'two' }],
      ['scale', { replicas: -1 }],
      ['scale', { replicas: 1.5 }],
    ];
    for (const [route, body] of cases) {
      const res = await api.call('POST', `/api/v1/apps/${d}/web/${route}`, { cookie: owner.cookie, body });
      expect(res.status, `${route} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    expect((await kube.get(ns, 'web'))?.spec.operation?.id).toBe(before);
    expect((await kube.get(ns, 'web'))?.spec.freeze).not.toBe(true);
  });

  it('rolls back only to a revision from history, and reports history', async () => {
    await kube.setStatus(ns, 'web', {
      revision: 'c3',
      previousRevisions: ['c3', 'c2', 'c1'],
      lastSyncAt: '2026-11-21T05:00:00Z',
      syncStatus: 'Synced',
      healthStatus: 'Healthy',
    });
    const history = await api.call<Json>('GET', `/api/v1/apps/${d}/web/history`, { cookie: viewer.cookie });
    expect(history.body).toEqual({
      name: 'web',
      revision: 'c3',
      previous_revisions: ['c3', 'c2', 'c1'],
      last_sync_at: '2026-11-21T05:00:00Z',
      revision_tags: [],
    });
    // Not in the App's history: a revision the document accepts but that names nothing (422).
    expect(
      (await api.call('POST', `/api/v1/apps/${d}/web/rollback`, { cookie: owner.cookie, body: { revision: 'zz' } }))
        .status,
    ).toBe(422);
    const res = await api.call<Json>('POST', `/api/v1/apps/${d}/web/rollback`, {
      cookie: owner.cookie,
      body: { revision: 'c1' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ revision: 'c1', operation_id: expect.stringMatching(UUID) });
    expect((await kube.get(ns, 'web'))?.spec.operation).toMatchObject({
      kind: 'Rollback',
      revision: 'c1',
      triggeredBy: owner.id,
    });
    expect(
      (await api.call('POST', `/api/v1/apps/${d}/web/rollback`, { cookie: owner.cookie, body: { revision: 'c2' } }))
        .status,
    ).toBe(409);
    expect((await audit('app.rollback', 'web'))[0]?.['details']).toMatchObject({ revision: 'c1' });
    await kube.completeOperation(ns, 'web', 'Succeeded', { revision: 'c1' });
    // A later operation without a revision does not inherit the rollback's.
    const restart = await api.call<Json>('POST', `/api/v1/apps/${d}/web/restart`, { cookie: owner.cookie });
    expect((await kube.get(ns, 'web'))?.spec.operation).toMatchObject({ kind: 'Restart' });
    expect((await kube.get(ns, 'web'))?.spec.operation?.revision).toBeUndefined();
    expect((await audit('app.restart', 'web'))[0]?.['details']).toMatchObject({
      operation_id: restart.body['operation_id'],
    });
    await kube.completeOperation(ns, 'web', 'Succeeded');
  });

  it('deploys Git apps to head and image apps with a new tag', async () => {
    // A tag is for image Apps: a Git App's state refuses it (409).
    expect(
      (await api.call('POST', `/api/v1/apps/${d}/web/deploy`, { cookie: owner.cookie, body: { tag: '2.0' } })).status,
    ).toBe(409);
    const git = await api.call<Json>('POST', `/api/v1/apps/${d}/web/deploy`, { cookie: owner.cookie });
    expect(git).toMatchObject({ status: 200, body: { name: 'web', tag: '' } });
    expect((await kube.get(ns, 'web'))?.spec.operation?.kind).toBe('Deploy');
    await kube.completeOperation(ns, 'web', 'Succeeded');
    const img = await api.call<Json>('POST', `/api/v1/apps/${d}/img/deploy`, {
      cookie: owner.cookie,
      body: { tag: '2.0' },
    });
    expect(img).toMatchObject({
      status: 200,
      body: { name: 'img', tag: '2.0', operation_id: expect.stringMatching(UUID) },
    });
    const stored = await kube.get(ns, 'img');
    expect(stored?.spec.source.image?.tag).toBe('2.0');
    expect(stored?.spec.operation).toMatchObject({ kind: 'Deploy', id: img.body['operation_id'] });
    expect((await audit('app.deploy', 'img'))[0]?.['details']).toMatchObject({ tag: '2.0' });
  });

  it('approves only a held sync, carrying the staged revision', async () => {
    expect((await api.call('POST', `/api/v1/apps/${d}/web/approve`, { cookie: owner.cookie })).status).toBe(409);
    const held = await api.call<Json>('POST', `/api/v1/apps/${d}/web/sync`, { cookie: owner.cookie });
    await kube.completeOperation(ns, 'web', 'Held', { revision: 'c4' });
    const res = await api.call<Json>('POST', `/api/v1/apps/${d}/web/approve`, { cookie: owner.cookie });
    expect(res).toMatchObject({ status: 200, body: { revision: 'c4', operation_id: expect.stringMatching(UUID) } });
    expect(res.body['operation_id']).not.toBe(held.body['operation_id']);
    expect((await kube.get(ns, 'web'))?.spec.operation).toMatchObject({ kind: 'Approve', revision: 'c4' });
    expect(await audit('app.approve', 'web')).toHaveLength(1);
    await kube.completeOperation(ns, 'web', 'Succeeded', { revision: 'c4' });
  });

  it('freezes and unfreezes', async () => {
    expect((await api.call('POST', `/api/v1/apps/${d}/web/freeze`, { cookie: viewer.cookie })).status).toBe(403);
    const f = await api.call('POST', `/api/v1/apps/${d}/web/freeze`, { cookie: owner.cookie });
    expect(f).toMatchObject({ status: 200, body: { frozen: true } });
    expect((await kube.get(ns, 'web'))?.spec.freeze).toBe(true);
    expect((await api.call<Json>('GET', `/api/v1/apps/${d}/web/status`, { cookie: owner.cookie })).body['frozen']).toBe(
      true,
    );
    const u = await api.call('POST', `/api/v1/apps/${d}/web/unfreeze`, { cookie: owner.cookie });
    expect(u).toMatchObject({ status: 200, body: { frozen: false } });
    expect((await kube.get(ns, 'web'))?.spec.freeze).toBe(false);
    expect(await audit('app.freeze', 'web')).toHaveLength(1);
    expect(await audit('app.unfreeze', 'web')).toHaveLength(1);
  });

  it('scales image apps with a sync, refuses Git apps and autoscaled apps (409)', async () => {
    expect(
      (await api.call('POST', `/api/v1/apps/${d}/web/scale`, { cookie: owner.cookie, body: { replicas: 2 } })).status,
    ).toBe(409);
    const res = await api.call<Json>('POST', `/api/v1/apps/${d}/img-scale/scale`, {
      cookie: owner.cookie,
      body: { replicas: 3 },
    });
    expect(res).toMatchObject({ status: 200, body: { replicas: 3, operation_id: expect.stringMatching(UUID) } });
    const stored = await kube.get(ns, 'img-scale');
    expect(stored?.spec.source.image?.workload?.replicas).toBe(3);
    expect(stored?.spec.operation).toMatchObject({ kind: 'Sync', id: res.body['operation_id'] });
    expect((await audit('app.scale', 'img-scale'))[0]?.['details']).toMatchObject({ replicas: 3 });
    // The scale's Sync is pending: a second scale is refused like any second operation.
    expect(
      (await api.call('POST', `/api/v1/apps/${d}/img-scale/scale`, { cookie: owner.cookie, body: { replicas: 1 } }))
        .status,
    ).toBe(409);

    await create({
      name: 'auto',
      namespace: d,
      source: {
        type: 'Image',
        image: { repository: 'nginx', tag: '1', autoscaling: { enabled: true, min: 1, max: 3 } },
      },
    });
    expect(
      (await api.call('POST', `/api/v1/apps/${d}/auto/scale`, { cookie: owner.cookie, body: { replicas: 2 } })).status,
    ).toBe(409);
    expect((await kube.get(ns, 'auto'))?.spec.operation).toBeUndefined();
  });

  it('promotes only between image apps with an applied digest (409); unknown target 404, no target 400', async () => {
    const promote = (from: string, to: string | undefined, cookie = owner.cookie) =>
      api.call('POST', `/api/v1/apps/${d}/${from}/promote${to ? `?to=${to}` : ''}`, { cookie });
    const before = (await kube.get(ns, 'img'))?.spec.operation?.id;
    expect((await promote('web', 'img')).status).toBe(409);
    // No operator runs in this file, so no image App has an applied digest: 409.
    const res = await promote('auto', 'img');
    expect(res).toMatchObject({ status: 409, body: { error: 'app auto has no applied image digest to promote' } });
    expect((await promote('auto', 'nope')).status).toBe(404);
    expect((await promote('auto', undefined)).status).toBe(400);
    expect((await promote('auto', 'img', viewer.cookie)).status).toBe(403);
    expect((await kube.get(ns, 'img'))?.spec.operation?.id).toBe(before);
  });

  it('returns the status view, and with wait blocks until the operator reports a terminal state', async () => {
    await kube.setStatus(ns, 'web', { syncStatus: 'OutOfSync', healthStatus: 'Progressing', observedRevision: 'c5' });
    const plain = await api.call<Json>('GET', `/api/v1/apps/${d}/web/status`, { cookie: viewer.cookie });
    expect(plain.body).toMatchObject({
      name: 'web',
      sync_status: 'OutOfSync',
      health: 'Progressing',
      revision: 'c3',
      observed: 'c5',
      frozen: false,
      operationState: { kind: 'Approve', phase: 'Succeeded' },
    });
    const waiting = api.call<Json>('GET', `/api/v1/apps/${d}/web/status?wait=60s`, { cookie: viewer.cookie });
    // The answer must come from the watch, after this write, not from the state when the request arrived.
    await new Promise((r) => setTimeout(r, 300));
    await kube.setStatus(ns, 'web', { syncStatus: 'Synced', healthStatus: 'Healthy', revision: 'c5' });
    const done = await waiting;
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ sync_status: 'Synced', health: 'Healthy', revision: 'c5' });
    await kube.setStatus(ns, 'web', { healthStatus: 'Progressing' });
    const degraded = api.call<Json>('GET', `/api/v1/apps/${d}/web/status?wait=2m`, { cookie: viewer.cookie });
    await new Promise((r) => setTimeout(r, 300));
    await kube.setStatus(ns, 'web', { healthStatus: 'Degraded', healthReason: 'Deployment web: 0/1 ready' });
    expect((await degraded).body).toMatchObject({ health: 'Degraded', health_reason: 'Deployment web: 0/1 ready' });
    expect((await api.call('GET', `/api/v1/apps/${d}/web/status?wait=soon`, { cookie: viewer.cookie })).status).toBe(
      400,
    );
    expect((await api.call('GET', `/api/v1/apps/${d}/web/status?verbose=1`, { cookie: viewer.cookie })).status).toBe(
      400,
    );
  });

  it('merges App and workload events, newest first, at most 50', async () => {
    await kube.setStatus(ns, 'web', {
      resources: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          namespace: d,
          syncStatus: 'Synced',
          healthStatus: 'Healthy',
        },
      ],
    });
    const t = (m: number) => new Date(Date.UTC(2026, 10, 21, 4, m));
    await kube.event(
      ns,
      { kind: 'App', name: 'web', apiVersion: 'cd.svc.space/v1alpha1' },
      { reason: 'Synced', message: 'applied c4', at: t(1) },
    );
    await kube.event(
      d,
      { kind: 'Pod', name: 'web-7d9f-abcde' },
      { reason: 'BackOff', message: 'crash', type: 'Warning', at: t(3) },
    );
    await kube.event(
      d,
      { kind: 'Deployment', name: 'web' },
      { reason: 'ScalingReplicaSet', message: 'scaled', at: t(2) },
    );
    await kube.event(d, { kind: 'Pod', name: 'unrelated-1' }, { reason: 'Pulled', message: 'other app', at: t(4) });
    await kube.event(ns, { kind: 'App', name: 'img' }, { reason: 'Synced', message: 'not ours', at: t(5) });
    const res = await api.call<{ events: Json[] }>('GET', `/api/v1/apps/${d}/web/events`, { cookie: viewer.cookie });
    expect(res.status).toBe(200);
    expect(res.body.events.map((e) => [e['reason'], e['source'], e['object']])).toEqual([
      ['BackOff', 'workload', 'Pod/web-7d9f-abcde'],
      ['ScalingReplicaSet', 'workload', 'Deployment/web'],
      ['Synced', 'app', 'App/web'],
    ]);
    expect(res.body.events[0]).toMatchObject({ type: 'Warning', message: 'crash', at: t(3).toISOString() });
    for (let i = 0; i < 55; i++) {
      await kube.event(ns, { kind: 'App', name: 'web' }, { reason: `R${i}`, message: 'm', at: t(10 + i) });
    }
    const capped = await api.call<{ events: Json[] }>('GET', `/api/v1/apps/${d}/web/events`, { cookie: viewer.cookie });
    expect(capped.body.events).toHaveLength(50);
    expect(capped.body.events[0]?.['reason']).toBe('R54');
  });
});
