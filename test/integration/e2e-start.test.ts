/**
 * End to end, as a user runs it: `svc start` (API, auth component and operator in one process) against the real
 * management control plane and a real git server, on its default public URL (SVC_PUBLIC_URL unset) while the user
 * opens it as http://127.0.0.1:<port>. Sign up and create an org through /api/auth/*, create a Git App, mint a
 * sync-only API key, sync and wait for Synced/Healthy, push a commit and deliver the push event to the operator's
 * receiver (audited through the in-process channel, user_id empty), read the audit log, and delete the App, which
 * removes what it deployed.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect } from '../../src/kube/index.ts';
import {
  type GitRepo,
  type GitServer,
  type SvcProcess,
  startGitServer,
  startSvc,
  waitUntil,
} from '../harness/index.ts';

const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ${replicas}
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
        - name: web
          image: nginx:1.27
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: { app: web }
  ports:
    - port: 80
`;

describe('svc start, end to end', () => {
  const slug = `e2e-${randomBytes(3).toString('hex')}`;
  const destination = `${slug}-shop`;
  let git: GitServer;
  let repo: GitRepo;
  let svc: SvcProcess;
  let base: string;
  let webhook: string;
  let cookie = '';
  let key = '';
  let firstCommit = '';
  type Deployment = {
    metadata: { labels?: Record<string, string>; managedFields?: { manager: string }[] };
    spec?: { replicas?: number };
    status?: { readyReplicas?: number };
  };
  /** The live Deployment `web` in the App's destination, or undefined. */
  const liveDeployment = async () =>
    (await connect({ kubeconfigPath: inject('mgmtKubeconfig') }).objects.get({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      namespace: destination,
    })) as Deployment | undefined;

  async function call<T = any>(method: string, path: string, body?: unknown, auth: 'cookie' | 'key' = 'cookie') {
    const headers: Record<string, string> = { origin: base };
    if (auth === 'cookie' && cookie) headers['cookie'] = cookie;
    if (auth === 'key') headers['authorization'] = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T, headers: res.headers };
  }

  beforeAll(async () => {
    git = await startGitServer();
    repo = await git.createRepo(`${slug}-web`, { 'manifests/web.yaml': deployment(2) });
    firstCommit = await repo.head();
    // SVC_PUBLIC_URL stays unset: the default is http://localhost:<port>, and the browser below says 127.0.0.1.
    svc = await startSvc({ kubeconfig: inject('mgmtKubeconfig'), watchNamespace: `org-${slug}`, publicURL: null });
    ({ base, webhook } = svc);
  });

  afterAll(async () => {
    await svc?.stop();
    await git?.stop();
  });

  it('signs up and creates an org through the auth component, from a loopback origin other than localhost', async () => {
    const signUp = await call('POST', '/api/auth/sign-up/email', {
      email: `${slug}@example.test`,
      password: 'correct horse battery',
      name: 'Ada',
    });
    expect(signUp.status).toBe(200);
    cookie = signUp.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    expect(cookie).toContain('better-auth.session_token=');
    const org = await call('POST', '/api/auth/organization/create', { name: 'E2E', slug });
    expect(org.status).toBe(200);
    const me = await call('GET', '/api/v1/auth/me');
    expect(me.body.user).toMatchObject({ email: `${slug}@example.test`, role: 'Owner' });
  });

  it('creates a Git App and syncs it with a sync-only API key until Synced and Healthy', async () => {
    const created = await call('POST', '/api/v1/apps', {
      name: 'web',
      namespace: destination,
      source: { type: 'Git', git: { repoURL: repo.url, path: 'manifests' } },
      sync_policy: { prune: true },
      webhook: { enabled: true },
    });
    expect(created.status).toBe(201);
    const minted = await call('POST', '/api/v1/auth/api-keys', {
      name: 'ci',
      role: 'sync',
      scope: 'deployment',
      scope_id: `/${destination}`,
      expires_days: 1,
    });
    expect(minted.status).toBe(201);
    key = minted.body.key;

    const sync = await call('POST', `/api/v1/apps/${destination}/web/sync`, undefined, 'key');
    expect(sync.status).toBe(200);
    const status = await call('GET', `/api/v1/apps/${destination}/web/status?wait=90s`, undefined, 'key');
    expect(status.body).toMatchObject({
      name: 'web',
      sync_status: 'Synced',
      health: 'Healthy',
      revision: firstCommit,
      operationState: { kind: 'Sync', id: sync.body.operation_id, phase: 'Succeeded' },
    });

    const live = await liveDeployment();
    expect(live?.metadata.labels?.['cd.svc.space/app']).toBe('web');
    expect(live?.metadata.managedFields?.map((f) => f.manager)).toContain('svc-operator');
    expect(live?.status?.readyReplicas).toBe(2);
  });

  it('applies a pushed commit when the push event arrives', async () => {
    const next = await repo.commit({ 'manifests/web.yaml': deployment(3) }, 'scale to 3');
    const push = await fetch(`${webhook}/webhook/gitA`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
      body: JSON.stringify({
        ref: 'refs/heads/main',
        after: next,
        repository: { clone_url: repo.url },
        pusher: { name: 'ada' },
      }),
    });
    expect(await push.json()).toEqual({ matched: 1 });
    await waitUntil(
      async () => {
        const s = await call('GET', `/api/v1/apps/${destination}/web/status`, undefined, 'key');
        return s.body.revision === next && s.body.health === 'Healthy' && s.body.sync_status === 'Synced';
      },
      { what: 'the pushed commit applied', timeoutMs: 90_000 },
    );
    const live = await liveDeployment();
    expect(live?.spec?.replicas).toBe(3);
    const history = await call('GET', `/api/v1/apps/${destination}/web/history`, undefined, 'key');
    expect(history.body).toMatchObject({ revision: next, previous_revisions: [firstCommit] });
  });

  it('audits what happened, newest first, the push delivery as the system', async () => {
    const entries = async () => (await call('GET', '/api/v1/audit?limit=10')).body.entries as Record<string, any>[];
    await waitUntil(async () => (await entries()).length >= 5, { what: 'five audit entries', timeoutMs: 30_000 });
    const audit = await entries();
    expect(audit.map((e) => e['action'])).toEqual([
      'app.sync',
      'app.sync',
      'apikey.create',
      'app.create',
      'team.create',
    ]);
    const [push, sync] = audit;
    expect(push).toMatchObject({
      user_id: '',
      resource_name: 'web',
      details: { triggeredBy: 'webhook:gitA', namespace: destination, cluster: '' },
    });
    expect(push?.['details']['operation_id']).toEqual(expect.any(String));
    expect(sync?.['user_id']).not.toBe('');
  });

  it('deletes the App and with it what it deployed', async () => {
    const removed = await call('DELETE', `/api/v1/apps/${destination}/web`);
    expect(removed.status).toBe(200);
    await waitUntil(async () => (await liveDeployment()) === undefined, {
      what: 'the Deployment deleted with its App',
      timeoutMs: 60_000,
    });
    // The App itself goes once the operator has released its finalizer.
    await waitUntil(async () => (await call('GET', `/api/v1/apps/${destination}/web`)).status === 404, {
      what: 'the App gone',
      timeoutMs: 30_000,
    });
  });
});
