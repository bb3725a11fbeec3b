/**
 * End to end, as a user runs it: `svc start` (API, auth component and operator in one process) against the real
 * management control plane and a real git server, on its default public URL (SVC_PUBLIC_URL unset) while the user
 * opens it as http://127.0.0.1:<port>. Sign up and create an org through /api/auth/*, create a Git App, mint a
 * sync-only API key, sync and wait for Synced/Healthy, push a commit and deliver the push event to the operator's
 * receiver (audited through the in-process channel, user_id empty), read the audit log, and delete the App, which
 * removes what it deployed.
 *
 * Then the first command of a fresh clone: `npm start` in a copy of the checkout (its files as git lists them, no
 * web/dist, no .svc; node_modules linked, the binaries cached in SVC_TOOLS_DIR as after one run) with no management
 * cluster configured starts the local control plane of `npm run cluster`, says so in its first lines, and an App
 * created through the API becomes Synced and Healthy on it; stopping it (Ctrl-C) stops the plane too.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect } from '../../src/kube/index.ts';
import {
  cacheDir,
  captureForLeakScan,
  freePort,
  type GitRepo,
  type GitServer,
  repoRoot,
  SvcHttp,
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

  let user: SvcHttp;
  /** A call as the signed-up user, with the session cookie or (`'key'`) the sync-only API key. */
  const call = <T = any>(method: string, path: string, body?: unknown, auth: 'cookie' | 'key' = 'cookie') =>
    user.call<T>(method, path, body, auth === 'key' ? key : undefined);

  beforeAll(async () => {
    git = await startGitServer();
    repo = await git.createRepo(`${slug}-web`, { 'manifests/web.yaml': deployment(2) });
    firstCommit = await repo.head();
    // SVC_PUBLIC_URL stays unset: the default is http://localhost:<port>, and the browser below says 127.0.0.1.
    svc = await startSvc({ kubeconfig: inject('mgmtKubeconfig'), watchNamespace: `org-${slug}`, publicURL: null });
    ({ base, webhook } = svc);
    user = new SvcHttp(base);
  });

  afterAll(async () => {
    await svc?.stop();
    await git?.stop();
  });

  it('signs up and creates an org through the auth component, from a loopback origin other than localhost', async () => {
    const signUp = await user.signUp(`${slug}@example.test`, 'Ada');
    expect(signUp.status).toBe(200);
    expect(user.cookie).toContain('better-auth.session_token=');
    const org = await user.createOrg('E2E', slug);
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

/** A copy of the checkout as a fresh clone has it: the files git tracks (and new ones it would), nothing ignored. */
function freshClone(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fresh-clone-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(repoRoot, f)));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(repoRoot, file), join(dir, file));
  }
  // What `npm install` would put there (the test does not spend a minute installing the same tree again).
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** Resolves true when something accepts TCP connections on `port` of 127.0.0.1. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolveListening) => {
    const socket = connectTcp(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolveListening(true);
    });
    socket.once('error', () => resolveListening(false));
  });
}

describe('npm start in a fresh clone, with no management cluster configured', () => {
  const slug = `fresh-${randomBytes(3).toString('hex')}`;
  const destination = `${slug}-web`;
  let clone = '';
  let git: GitServer;
  let repo: GitRepo;
  let child: ChildProcess;
  let exited: Promise<void>;
  let base = '';
  const output: string[] = [];
  const svcLines = () =>
    output
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('svc: '));

  /** Ctrl-C in the terminal: SIGINT to npm's whole process group (gone already: nothing to do). */
  const interrupt = () => {
    try {
      if (child?.pid) process.kill(-child.pid, 'SIGINT');
    } catch {
      // The group has exited.
    }
  };

  beforeAll(async () => {
    git = await startGitServer();
    repo = await git.createRepo(`${slug}-web`, { 'manifests/web.yaml': deployment(1) });
    clone = freshClone();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawn(
      'npm',
      [
        'start',
        '--',
        '--sync-period=5s',
        // Free ports: other tests run beside this one (a user's npm start takes the defaults).
        '--webhook-bind-address=127.0.0.1:0',
        '--metrics-bind-address=127.0.0.1:0',
        '--health-probe-bind-address=127.0.0.1:0',
      ],
      {
        cwd: clone,
        // Its own process group, as a terminal gives a command.
        detached: true,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: process.env['HOME'] ?? '',
          SVC_TOOLS_DIR: cacheDir(),
          SVC_LISTEN: `127.0.0.1:${port}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', (d) => output.push(String(d)));
    child.stderr?.on('data', (d) => output.push(String(d)));
    exited = new Promise((resolveExit) => child.once('exit', () => resolveExit()));
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}: ${output.join('')}`);
        return (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true;
      },
      { what: 'npm start ready (web UI built, control plane started)', timeoutMs: 240_000, intervalMs: 500 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\noutput:\n${output.join('').slice(-3000)}`);
    });
  }, 300_000);

  afterAll(async () => {
    interrupt();
    await exited;
    captureForLeakScan('npm start (fresh clone) output', output.join(''));
    await git?.stop();
    if (clone) rmSync(clone, { recursive: true, force: true });
  });

  it('says in its first lines that it starts a local control plane and connects svc to it', () => {
    const lines = svcLines();
    expect(lines[0]).toBe(
      'svc: no management cluster configured (SVC_MGMT_KUBECONFIG is unset): starting a local control plane, as',
    );
    expect(lines.join('\n')).toMatch(
      /svc: local control plane ready in [\d.]+ s at https:\/\/127\.0\.0\.1:\d+; svc connects to it \(SVC_MGMT_KUBECONFIG=\S+admin\.kubeconfig\)/,
    );
    // A fresh clone has no web/dist: npm start built it first. The binaries were cached: none was built.
    expect(output.join('')).toMatch(/web UI built into web\/dist in [\d.]+ s/);
    expect(lines.filter((l) => l.startsWith('svc: building'))).toEqual([]);
  });

  it('creates an App that becomes Synced and Healthy on that plane', async () => {
    const user = new SvcHttp(base);
    expect((await user.signUp(`${slug}@example.test`, 'New')).status).toBe(200);
    expect((await user.createOrg('First', slug)).status).toBe(200);
    const created = await user.call('POST', '/api/v1/apps', {
      name: 'web',
      namespace: destination,
      source: { type: 'Git', git: { repoURL: repo.url, path: 'manifests' } },
      sync_policy: { automated: true },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const head = await repo.head();
    await waitUntil(
      async () => {
        const s = await user.call('GET', `/api/v1/apps/${destination}/web/status?wait=30s`);
        return s.body.sync_status === 'Synced' && s.body.health === 'Healthy' && s.body.revision === head;
      },
      { what: 'the App Synced and Healthy', timeoutMs: 120_000 },
    );
  });

  it('stops the control plane when svc stops', async () => {
    const line = svcLines().find((l) => l.includes('SVC_MGMT_KUBECONFIG='));
    const port = Number(/at https:\/\/127\.0\.0\.1:(\d+);/.exec(line ?? '')?.[1]);
    const kubeconfig = /SVC_MGMT_KUBECONFIG=(\S+)\)/.exec(line ?? '')?.[1] ?? '';
    expect(await listening(port)).toBe(true);
    interrupt();
    await exited;
    // npm itself dies of the SIGINT at once; svc stops, then its process exits and the plane's components with it.
    await waitUntil(async () => output.join('').includes('operator stopped'), {
      what: 'svc stopped',
      timeoutMs: 30_000,
    });
    await waitUntil(async () => !(await listening(port)), { what: 'the plane’s apiserver gone', timeoutMs: 30_000 });
    await waitUntil(async () => !existsSync(kubeconfig), { what: 'the plane’s files removed', timeoutMs: 10_000 });
  });
});
