/**
 * GET /apps/{ns}/{name}/diff, /resources and /logs against the real plane with a real operator and a real git
 * server: the diff (server-side apply dry run vs live) agrees with the App's syncStatus as the operator records it
 * when synced, when upstream moved (changed and extra objects), and when an object was deleted out of band
 * (missing); Secret values never appear; the resource tree shows Deployment → ReplicaSet → Pods with health; Pod
 * logs come from the destination (kwok plays the kubelet) and are refused for Pods that are not the App's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitRepo, type GitServer, startGitServer, waitUntil } from '../harness/index.ts';
import { type OrgApi, startOrgApi } from './api-support.ts';
import {
  configMapYaml,
  deleteNamespaces,
  deploymentYaml,
  kube,
  startTestOperator,
  type TestOperator,
} from './operator-support.ts';

type Json = Record<string, any>;
const secretYaml = (value: string) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  password: ${value}\n`;

describe('diff, resource tree and logs of an App', () => {
  let org: OrgApi;
  let op: TestOperator;
  let git: GitServer;
  let repo: GitRepo;
  const dest = `diff-${Math.random().toString(16).slice(2, 8)}`;
  const call = <T = Json>(method: string, path: string) => org.api.call<T>(method, path, { cookie: org.owner.cookie });
  const status = async () => (await call(`GET`, `/api/v1/apps/${dest}/web/status`)).body;
  const diff = async () => {
    const res = await call('GET', `/api/v1/apps/${dest}/web/diff`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const byKind = (d: Json, kind: string) => (d['objects'] as Json[]).find((o) => o['kind'] === kind);

  beforeAll(async () => {
    org = await startOrgApi('diff');
    git = await startGitServer();
    repo = await git.createRepo(`diff-${org.suffix}`, {
      'm/web.yaml': deploymentYaml('web', 1),
      'm/config.yaml': configMapYaml('settings', { mode: 'blue' }),
      'm/secret.yaml': secretYaml('hunter2-first'),
    });
    op = await startTestOperator(org.orgNs);
    const created = await org.api.call('POST', '/api/v1/apps', {
      cookie: org.owner.cookie,
      body: {
        name: 'web',
        namespace: dest,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        sync_policy: { prune: true },
      },
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    await deleteNamespaces(dest);
  });

  it('before the first sync, everything is missing and both say OutOfSync or not yet known', async () => {
    await waitUntil(async () => (await status())['sync_status'] !== 'Unknown', { what: 'first reconcile' });
    const d = await diff();
    expect(d['sync_status']).toBe('OutOfSync');
    expect(d['recorded_sync_status']).toBe('OutOfSync');
    expect(d['summary']).toMatchObject({ missing: 3, same: 0 });
    expect(d['revision']).toMatchObject({ applied: '', compared: await repo.head() });
  });

  it('secrets leaked through diffs (CVE-2026-42880, CVE-2025-23216): after a sync, Synced on both sides, every object the same, no Secret value anywhere', async () => {
    expect((await call('POST', `/api/v1/apps/${dest}/web/sync`)).status).toBe(200);
    const synced = await call<Json>('GET', `/api/v1/apps/${dest}/web/status?wait=90s`);
    expect(synced.body).toMatchObject({ sync_status: 'Synced', health: 'Healthy' });
    const d = await diff();
    expect(d).toMatchObject({ sync_status: 'Synced', recorded_sync_status: 'Synced', drifted: false });
    expect(d['summary']).toEqual({ same: 3, changed: 0, missing: 0, extra: 0 });
    expect(d['unified']).toBe('');
    const text = JSON.stringify(d);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain(Buffer.from('hunter2-first').toString('base64'));
    expect(byKind(d, 'Secret')?.['live']).toContain('password: "********"');
  });

  it('shows the live tree: Deployment → ReplicaSet → Pod, healthy', async () => {
    const res = await call<{ nodes: Json[] }>('GET', `/api/v1/apps/${dest}/web/resources`);
    expect(res.status).toBe(200);
    const nodes = res.body.nodes;
    const deployment = nodes.find((n) => n['kind'] === 'Deployment');
    const rs = nodes.find((n) => n['kind'] === 'ReplicaSet');
    const pods = nodes.filter((n) => n['kind'] === 'Pod');
    expect(deployment).toMatchObject({ parent: null, health: 'Healthy', sync_status: 'Synced' });
    expect(rs?.['parent']).toBe(deployment?.['id']);
    expect(pods).toHaveLength(1);
    expect(pods[0]).toMatchObject({ parent: rs?.['id'], health: 'Healthy', info: { containers: ['main'] } });
    expect(
      nodes
        .filter((n) => n['parent'] === null)
        .map((n) => n['kind'])
        .sort(),
    ).toEqual(['ConfigMap', 'Deployment', 'Secret']);
  });

  it('an out-of-band edit of an applied field shows as drift: OutOfSync, naming the field and its new owner', async () => {
    const k = kube();
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', namespace: dest };
    await k.client.request(await k.path(ref), {
      method: 'PATCH',
      query: { fieldManager: 'kubectl-edit' },
      body: { data: { mode: 'green' } },
      contentType: 'application/merge-patch+json',
    });
    const d = await diff();
    expect(d).toMatchObject({ sync_status: 'OutOfSync', drifted: true });
    expect(byKind(d, 'ConfigMap')?.['patch']).toMatch(/^-\s+mode: green$/m);
    expect(byKind(d, 'ConfigMap')?.['drift']).toEqual({ fields: ['data.mode'], taken_by: ['kubectl-edit'] });
    expect(byKind(d, 'Deployment')?.['drift']).toBeUndefined();
    // The operator's watch sees the same drift: the recorded status agrees.
    await waitUntil(async () => (await status())['sync_status'] === 'OutOfSync', { what: 'recorded OutOfSync' });
  });

  it('when upstream moves: OutOfSync on both sides, changed and extra objects explain why', async () => {
    const head = await repo.commit(
      { 'm/web.yaml': deploymentYaml('web', 2), 'm/secret.yaml': secretYaml('hunter2-second'), 'm/config.yaml': null },
      'scale, rotate, drop the config',
    );
    await waitUntil(async () => (await status())['observed'] === head, { what: 'operator sees the new head' });
    const d = await diff();
    expect(d).toMatchObject({ sync_status: 'OutOfSync', recorded_sync_status: 'OutOfSync' });
    expect(d['revision']).toMatchObject({ compared: await repo.head() });
    expect(byKind(d, 'Deployment')).toMatchObject({ status: 'changed' });
    expect(byKind(d, 'Deployment')?.['patch']).toMatch(/^-\s+replicas: 1$/m);
    expect(byKind(d, 'Deployment')?.['patch']).toMatch(/^\+\s+replicas: 2$/m);
    expect(byKind(d, 'ConfigMap')).toMatchObject({ status: 'extra', desired: '' });
    const secret = byKind(d, 'Secret');
    expect(secret?.['status']).toBe('changed');
    expect(secret?.['patch']).toContain('password: "******** (desired)"');
    expect(JSON.stringify(d)).not.toMatch(/hunter2/);
  });

  it('when an object is deleted out of band: OutOfSync on both sides, the object missing', async () => {
    expect((await call('POST', `/api/v1/apps/${dest}/web/sync`)).status).toBe(200);
    await waitUntil(async () => (await status())['sync_status'] === 'Synced', { what: 'second sync' });
    expect((await diff())['sync_status']).toBe('Synced');
    await kube().delete({ apiVersion: 'v1', kind: 'Secret', name: 'creds', namespace: dest });
    await waitUntil(async () => (await status())['sync_status'] === 'OutOfSync', {
      what: 'operator sees the deletion',
    });
    const d = await diff();
    expect(d).toMatchObject({ sync_status: 'OutOfSync', recorded_sync_status: 'OutOfSync' });
    expect(byKind(d, 'Secret')).toMatchObject({ status: 'missing', live: '' });
  });

  it('streams the logs of one of its Pods from the destination', async () => {
    const tree = await call<{ nodes: Json[] }>('GET', `/api/v1/apps/${dest}/web/resources`);
    const pod = tree.body.nodes.find((n) => n['kind'] === 'Pod');
    expect(pod).toBeDefined();
    const res = await call('GET', `/api/v1/apps/${dest}/web/logs?pod=${pod?.['name']}&tail=10`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(String(res.body)).toContain('svc fake pod: serving on :80');
    const wrongContainer = await call('GET', `/api/v1/apps/${dest}/web/logs?pod=${pod?.['name']}&container=nope`);
    expect(wrongContainer.status).toBe(404);
  });

  it('logs: 404 for a Pod that is not the App’s, 400 for a bad tail, 404 for an unknown App', async () => {
    const other = await call('GET', `/api/v1/apps/${dest}/web/logs?pod=kube-apiserver`);
    expect(other.status).toBe(404);
    expect(other.body['error']).toMatch(/not one of app web/);
    const tail = await call('GET', `/api/v1/apps/${dest}/web/logs?pod=x&tail=0`);
    expect(tail.status).toBe(400);
    const missing = await call('GET', `/api/v1/apps/${dest}/nope/diff`);
    expect(missing.status).toBe(404);
  });
});
