/**
 * The `svc` client commands as a person and a CI job run them: the real executable (bin/svc.js) against a real
 * `svc start` on the management plane with a real git server, a temporary HOME for its config file. Login with a
 * key (file mode 0600) and through the browser handoff (this test plays the browser over HTTP with the session
 * cookie), create, sync --wait to Synced/Healthy with exit 0, a broken App exits 1, every -o format parses (json and
 * yaml round-trip to the same value), exit codes 2/3/4, keys, can-i, audit, clusters (the management plane registered
 * as one), registries and an image App on one (its credentials reach svc start's operator in process), completion,
 * and the progress display:
 * a spinner in a terminal (tmux) and plain lines in a pipe. Errors print the server's message and never a stack.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import {
  describeWith,
  type GitRepo,
  type GitServer,
  type PushedImage,
  type Registry,
  repoRoot,
  type SvcProcess,
  startGitServer,
  startRegistry,
  startSvc,
  tmuxRequirement,
  waitUntil,
} from '../harness/index.ts';

const SVC = join(repoRoot, 'bin/svc.js');
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
/** The start of an ANSI escape sequence (ESC [). */
const ESCAPE = new RegExp(`${String.fromCharCode(27)}\\[`);

const manifests = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
        - name: web
          image: nginx:1.27
`;

/** The server URL in a kubeconfig file (the harness writes one cluster). */
const serverOf = (kubeconfigPath: string): string =>
  /server: (\S+)/.exec(readFileSync(kubeconfigPath, 'utf8'))?.[1] ?? 'missing';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

describe('svc client commands against svc start', () => {
  const slug = `cli-${randomBytes(3).toString('hex')}`;
  const dest = `${slug}-shop`;
  let git: GitServer;
  let repo: GitRepo;
  let running: SvcProcess;
  let home: string;
  let base: string;
  let cookie = '';
  let adminKey = '';
  let registry: Registry;
  let image: PushedImage;

  /** Starts `svc args` with the test's HOME (and `env`), stdin from `input`; `output` fills as it runs. */
  function startCli(args: string[], options: { env?: Record<string, string>; input?: string; home?: string } = {}) {
    const output: Run = { status: null, stdout: '', stderr: '' };
    const child = spawn(process.execPath, [SVC, ...args], {
      env: { PATH: process.env['PATH'] ?? '', HOME: options.home ?? home, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d) => {
      output.stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      output.stderr += String(d);
    });
    child.stdin.end(options.input ?? '');
    const exited = new Promise<Run>((resolve) =>
      child.on('close', (status) => {
        output.status = status;
        resolve(output);
      }),
    );
    return { output, exited };
  }

  /** Runs `svc args` (see startCli) and resolves when it exits. */
  const svc = (args: string[], options: Parameters<typeof startCli>[1] = {}) => startCli(args, options).exited;

  async function call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { origin: base, cookie, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    if (!cookie) {
      cookie = res.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
    }
    return (await res.json()) as T;
  }

  beforeAll(async () => {
    git = await startGitServer();
    repo = await git.createRepo(`${slug}-web`, { 'manifests/web.yaml': manifests });
    registry = await startRegistry({ htpasswd: { user: 'ci', password: `${slug}-registry` } });
    image = await registry.pushImage('team/web', '1.0');
    home = mkdtempSync(join(tmpdir(), 'svc-cli-home-'));
    // No periodic reconcile (every test here asks for what it waits on): one of web's, held on the git server in the
    // terminal test below, would keep that test's sync waiting to be picked up for as long as the hold lasts.
    running = await startSvc({
      kubeconfig: inject('mgmtKubeconfig'),
      watchNamespace: `org-${slug}`,
      publicURL: null,
      syncPeriod: '1h',
    });
    base = running.base;
    await call('POST', '/api/auth/sign-up/email', {
      email: `${slug}@example.test`,
      password: 'correct horse battery',
      name: 'Ada',
    });
    await call('POST', '/api/auth/organization/create', { name: 'CLI', slug });
    adminKey = (await call<{ key: string }>('POST', '/api/v1/auth/api-keys', { name: 'cli', role: 'admin' })).key;
    // Registries are managed with a session (contract §5 rule 4): the test does it as the signed-in user.
    await call('POST', '/api/v1/registries', {
      name: 'local',
      host: registry.host,
      insecure: true,
      username: 'ci',
      password: `${slug}-registry`,
    });
  });

  afterAll(async () => {
    await running?.stop();
    await git?.stop();
    await registry?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('logs in with a key from stdin and keeps it in ~/.config/svc/config.yaml, readable by the owner only', async () => {
    const login = await svc(['login', base, '--api-key-stdin', '--context', 'ci'], { input: `${adminKey}\n` });
    expect(login.stderr).toBe('');
    expect(login.status).toBe(0);
    expect(login.stdout).toContain(`${slug}@example.test`);
    const file = join(home, '.config/svc/config.yaml');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.config/svc')).mode & 0o777).toBe(0o700);
    expect(parse(readFileSync(file, 'utf8'))).toEqual({
      'current-context': 'ci',
      contexts: { ci: { server: base, 'api-key': adminKey } },
    });
    const who = await svc(['whoami', '-o', 'json']);
    expect(who.status).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({
      user: { email: `${slug}@example.test`, role: 'Owner' },
      auth: 'key',
    });
    // Without --context, a later login saves under the current context (docs/cli.md).
    const again = await svc(['login', base, '--api-key-stdin'], { input: `${adminKey}\n` });
    expect(again.stdout).toContain('context "ci" saved');
    expect(Object.keys(parse(readFileSync(file, 'utf8')).contexts)).toEqual(['ci']);
  });

  it('exits 3 on authentication failures, printing the server’s message and no stack', async () => {
    const bad = await svc(['app', 'list'], { env: { SVC_API_KEY: 'svc_not-a-real-key-at-all' } });
    expect(bad.status).toBe(3);
    expect(bad.stderr).toBe('error: invalid, expired or revoked API key\n');
    const nobody = await svc(['app', 'list'], { home: mkdtempSync(join(tmpdir(), 'svc-cli-empty-')) });
    expect(nobody.status).toBe(3);
    expect(nobody.stderr).toMatch(/^error: not logged in/);
    for (const run of [bad, nobody]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('creates an App and syncs it with --wait to Synced/Healthy, exit 0, plain progress lines in a pipe', async () => {
    const created = await svc([
      'app',
      'create',
      'web',
      '-n',
      dest,
      '--repo',
      repo.url,
      '--path',
      'manifests',
      '--prune',
    ]);
    expect(created.stderr).toBe('');
    expect(created).toMatchObject({ status: 0, stdout: `app ${dest}/web created\n` });

    const sync = await svc(['app', 'sync', 'web', '--wait', '--timeout', '3m']);
    expect(sync.status, sync.stderr).toBe(0);
    expect(sync.stdout).toMatch(/^web: Synced and Healthy at [0-9a-f]{12}\n$/);
    // Not a terminal: plain lines, each state once, no escape codes or spinner frames.
    expect(sync.stderr).toMatch(/^ {2}Sync requested for .*\(operation [0-9a-f-]{36}\)$/m);
    expect(sync.stderr).toMatch(/^done: web: Synced and Healthy/m);
    expect(sync.stderr).not.toMatch(ESCAPE);
    expect(sync.stderr).not.toMatch(SPINNER);
    const lines = sync.stderr.trim().split('\n');
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('exits 1 when the operation fails (a broken App), saying why', async () => {
    const missing = repo.url.replace(/[^/]+$/, `${slug}-missing.git`);
    // --auto-rollback sets syncPolicy.autoRollback (a Go-style duration; anything else is the API's 400).
    const badDelay = await svc(['app', 'create', 'broken', '-n', dest, '--repo', missing, '--auto-rollback', 'soon']);
    expect(badDelay.status).not.toBe(0);
    expect(badDelay.stderr).toContain('onDegradedFor');
    expect(
      (await svc(['app', 'create', 'broken', '-n', dest, '--repo', missing, '--auto-rollback', '10m'])).status,
    ).toBe(0);
    const got = JSON.parse((await svc(['app', 'get', `${dest}/broken`, '-o', 'json'])).stdout);
    expect(got.sync_policy).toMatchObject({ autoRollback: { onDegradedFor: '10m' } });
    const sync = await svc(['app', 'sync', `${dest}/broken`, '--wait', '--timeout', '2m']);
    expect(sync.status).toBe(1);
    expect(sync.stdout).toMatch(/^broken: Sync failed: /);
    expect(sync.stderr).toMatch(/^failed: broken: Sync failed/m);
    expect(sync.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints every -o format; json and yaml parse to the same value', async () => {
    const json = await svc(['app', 'list', '-o', 'json']);
    const yaml = await svc(['-o', 'yaml', 'app', 'list']);
    expect(json.status).toBe(0);
    expect(yaml.status).toBe(0);
    const fromJson = JSON.parse(json.stdout) as { apps: Array<{ name: string; sync_status: string }> };
    expect(parse(yaml.stdout)).toEqual(fromJson);
    expect(fromJson.apps.map((a) => a.name).sort()).toEqual(['broken', 'web']);
    const getJson = JSON.parse((await svc(['app', 'get', 'web', '-o', 'json'])).stdout);
    expect(parse((await svc(['app', 'get', 'web', '-o', 'yaml'])).stdout)).toEqual(getJson);
    expect(getJson).toMatchObject({ name: 'web', namespace: dest, sync_status: 'Synced', health: 'Healthy' });

    const table = (await svc(['app', 'list'])).stdout.split('\n');
    expect(table[0]).toMatch(/^NAME\s+NAMESPACE\s+SYNC\s+HEALTH\s+REVISION$/);
    expect(table.find((l) => l.startsWith('web '))).toMatch(/web\s+\S+\s+Synced\s+Healthy\s+[0-9a-f]{12}/);
    const wide = (await svc(['app', 'list', '-o', 'wide'])).stdout.split('\n');
    expect(wide[0]).toMatch(/^NAME\s+NAMESPACE\s+CLUSTER\s+SYNC\s+HEALTH\s+REVISION\s+FROZEN\s+SOURCE\s+UPDATED$/);
    expect(wide.find((l) => l.startsWith('web '))).toContain(`${repo.url} manifests@main`);
    for (const args of [['app', 'status', 'web'], ['app', 'history', 'web'], ['app', 'events', 'web'], ['audit']]) {
      const j = await svc([...args, '-o', 'json']);
      const y = await svc([...args, '-o', 'yaml']);
      expect(j.status, args.join(' ')).toBe(0);
      expect(parse(y.stdout), args.join(' ')).toEqual(JSON.parse(j.stdout));
    }
  });

  it('exits 4 for what does not exist and 2 for bad usage, with a one-line message', async () => {
    const missing = await svc(['app', 'get', 'nope']);
    expect(missing).toMatchObject({ status: 4, stderr: 'error: app nope not found\n' });
    const wrongNs = await svc(['app', 'status', 'web', '-n', 'elsewhere']);
    expect(wrongNs).toMatchObject({ status: 4, stderr: 'error: app elsewhere/web not found\n' });
    expect((await svc(['app', 'sync'])).status).toBe(2);
    expect((await svc(['app', 'frobnicate'])).status).toBe(2);
    expect((await svc(['-o', 'xml', 'app', 'list'])).status).toBe(2);
    const badRollback = await svc(['app', 'rollback', 'web', 'not-a-revision']);
    expect(badRollback).toMatchObject({
      status: 2,
      stderr: "error: revision not-a-revision is not in the app's history\n",
    });
  });

  it('rolls back with --hold and releases: the hold shows on the App until svc app release', async () => {
    const revision = JSON.parse((await svc(['app', 'get', 'web', '-o', 'json'])).stdout)['revision'] as string;
    const held = await svc(['app', 'rollback', 'web', revision, '--hold', '--reason', 'pinned by the CLI test']);
    expect(held.status, held.stderr).toBe(0);
    expect(held.stdout).toMatch(/^Rollback requested; held until released for /);
    const app = JSON.parse((await svc(['app', 'get', 'web', '-o', 'json'])).stdout);
    expect(app['held_at']).toMatchObject({ revision, reason: 'pinned by the CLI test' });
    const released = await svc(['app', 'release', 'web']);
    expect(released).toMatchObject({ status: 0, stdout: `app web released from ${revision}\n` });
    expect(JSON.parse((await svc(['app', 'get', 'web', '-o', 'json'])).stdout)['held_at']).toBeNull();
    const again = await svc(['app', 'release', 'web']);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toBe('error: app web is not held\n');
  });

  it('lists registries and deploys an image App on one: svc start hands its operator the credentials in process', async () => {
    const list = await svc(['registry', 'list', '-o', 'json']);
    expect(list.status, list.stderr).toBe(0);
    const [local] = (JSON.parse(list.stdout) as { registries: Array<Record<string, unknown>> }).registries;
    expect(local).toMatchObject({ name: 'local', host: registry.host, username: 'ci', has_password: true });
    expect(list.stdout).not.toContain(`${slug}-registry`);
    const get = await svc(['registry', 'get', 'local']);
    expect(get.stdout).toMatch(/^Password: +set \(write-only\)$/m);
    expect((await svc(['registry', 'get', 'reg_nope'])).status).toBe(4);

    const created = await svc(['app', 'create', 'img', '-n', dest, '--image', 'team/web:1.0', '--registry', 'local']);
    expect(created).toMatchObject({ status: 0, stdout: `app ${dest}/img created\n` });
    const sync = await svc(['app', 'sync', 'img', '--wait', '--timeout', '3m']);
    expect(sync.status, sync.stderr).toBe(0);
    expect(sync.stdout).toBe(`img: Synced and Healthy at ${image.digest}\n`);
  });

  it('mints, lists and revokes keys; can-i answers with its exit code; audit shows the CLI’s sync', async () => {
    const created = await svc([
      'key',
      'create',
      'agent',
      '--role',
      'sync',
      '--scope',
      'deployment',
      '--scope-id',
      `/${dest}`,
      '--tools',
      'app_status,app_sync',
      '-o',
      'json',
    ]);
    expect(created.status).toBe(0);
    const key = JSON.parse(created.stdout) as { key: string; prefix: string; tools: string[] };
    expect(key).toMatchObject({ tools: ['app_status', 'app_sync'], key: expect.stringMatching(/^svc_/) });
    const list = await svc(['key', 'list']);
    expect(list.stdout).toMatch(
      new RegExp(`agent\\s+${key.prefix}\\s+sync\\s+deployment /${dest}\\s+app_status,app_sync`),
    );
    expect(list.stdout).not.toContain(key.key);
    expect(await svc(['can-i', 'deployment:sync', 'deployment', `/${dest}`])).toMatchObject({
      status: 0,
      stdout: 'yes\n',
    });
    const viewerCheck = await svc(['can-i', 'org:nonsense']);
    expect(viewerCheck).toMatchObject({ status: 1, stdout: 'no\n' });
    const revoked = await svc(['key', 'revoke', 'agent']);
    expect(revoked).toMatchObject({ status: 0, stdout: `API key agent (${key.prefix}…) revoked\n` });
    const audit = JSON.parse((await svc(['audit', '--limit', '200', '-o', 'json'])).stdout) as {
      entries: Array<{ action: string; resource_name: string }>;
    };
    const actions = audit.entries.map((e) => `${e.action} ${e.resource_name}`);
    expect(actions).toEqual(
      expect.arrayContaining(['app.sync web', 'app.create web', 'apikey.create agent', 'apikey.revoke agent']),
    );
  });

  it('registers, probes, tests, updates and removes a cluster, and opens a shell on it', async () => {
    // The management plane registered as a cluster of the org: a real apiserver behind a kubeconfig file.
    const kubeconfig = inject('mgmtKubeconfig');
    const registered = await svc([
      'cluster',
      'register',
      'self',
      '--server-url',
      serverOf(kubeconfig),
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(registered).toMatchObject({ status: 0, stdout: 'cluster self registered (status unknown)\n', stderr: '' });
    const listed = await svc(['cluster', 'list']);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/^NAME\s+STATUS\s+VERSION\s+NODES/);
    expect(listed.stdout).toMatch(/^self\s+connected\s+v1\.35\.\d+\s+1\s/m);
    const json = JSON.parse((await svc(['cluster', 'get', 'self', '--shallow', '-o', 'json'])).stdout);
    expect(json).toMatchObject({ cluster: { name: 'self', status: 'connected', credentials: 'kubeconfig' } });
    expect(JSON.stringify(json)).not.toContain('client-key-data');
    const tested = await svc(['cluster', 'test', '--kubeconfig', '-'], { input: readFileSync(kubeconfig, 'utf8') });
    expect(tested).toMatchObject({ status: 0, stdout: expect.stringMatching(/^ok: v1\.35\.\d+, \d+ namespaces\n$/) });
    const refused = await svc(['cluster', 'test', '--server-url', 'https://127.0.0.1:1', '--kubeconfig', kubeconfig]);
    expect(refused).toMatchObject({ status: 1, stdout: expect.stringMatching(/^failed: .*ECONNREFUSED/) });
    expect((await svc(['cluster', 'update', 'self', '--namespaces', 'default'])).status).toBe(0);
    expect(await svc(['cluster', 'namespaces', 'self'])).toMatchObject({ status: 0, stdout: 'default\n' });
    const shell = await svc(['cluster', 'shell', 'self', '--ttl', '2m']);
    expect(shell.status, shell.stderr).toBe(0);
    expect(shell.stdout).toMatch(/^shell svc-shell-[0-9a-f]{8} on self \(admin\), expires /);
    expect(shell.stdout).toContain("export SVC_SHELL_TOKEN='");
    expect(shell.stdout).toMatch(
      /kubectl --server=https:\/\/127\.0\.0\.1:\d+ .* exec -it svc-shell-[0-9a-f]{8} -c shell -- bash/,
    );
    expect((await svc(['cluster', 'update', 'self'])).status).toBe(2);
    expect((await svc(['cluster', 'get', 'nowhere'])).status).toBe(4);
    expect(await svc(['cluster', 'remove', 'self'])).toMatchObject({ status: 0, stdout: 'cluster self removed\n' });
    expect((await svc(['cluster', 'list'])).stdout).toBe('No clusters.\n');
  });

  it('reads secret stores (list, get, references, providers) and never shows a credential', async () => {
    const token = `hvs.${randomBytes(12).toString('hex')}`;
    // Managing stores is session-only: created with the browser session, read with the CLI's API key.
    const created = await call<{ id: string }>('POST', '/api/v1/secret-stores', {
      name: 'vault',
      type: 'vault',
      provider: 'openbao',
      config: { address: 'http://vault.example.test:8200' },
      credentials: { token },
    });
    const list = await svc(['store', 'list']);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^NAME\s+PROVIDER\s+STATUS\s+REFS/);
    expect(list.stdout).toMatch(/^vault\s+vault\/openbao\s+untested\s+0/m);
    const wide = await svc(['store', 'list', '-o', 'wide']);
    expect(wide.stdout).toContain(created.id);
    expect(wide.stdout).toContain('http://vault.example.test:8200');
    const json = await svc(['store', 'get', 'vault', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: created.id, name: 'vault', status: 'untested', references: 0 });
    const byId = await svc(['store', 'get', created.id]);
    expect(byId.stdout).toMatch(/^Provider:\s+vault\/openbao$/m);
    expect((await svc(['store', 'references', 'vault'])).stdout).toBe('No App uses this store.\n');
    expect((await svc(['store', 'providers'])).stdout).toMatch(/^sops\s+age\s+yes$/m);
    const missing = await svc(['store', 'get', 'nope']);
    expect(missing).toMatchObject({ status: 4, stderr: 'error: no secret store nope\n' });
    for (const run of [list, wide, json, byId]) expect(run.stdout).not.toContain(token);
  });

  it('logs in through the browser: the page mints a key for the signed-in user and hands it to the CLI', async () => {
    const browserHome = mkdtempSync(join(tmpdir(), 'svc-cli-browser-'));
    const login = startCli(['login', base, '--browser', '--no-open', '--role', 'read'], { home: browserHome });
    await waitUntil(async () => /http:\S+cli-login\S+/.test(login.output.stderr), {
      what: 'the login URL',
      timeoutMs: 15_000,
    });
    const url = (/http:\S+cli-login\S+/.exec(login.output.stderr) as RegExpExecArray)[0];

    // Without a session the page asks to sign in first.
    expect((await fetch(url)).status).toBe(401);
    // The browser (played here over HTTP with the session cookie) shows the page and confirms.
    const pageHtml = await (await fetch(url, { headers: { cookie } })).text();
    expect(pageHtml).toContain(`${slug}@example.test`);
    const fields = new URLSearchParams(
      [...pageHtml.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [
        m[1] ?? '',
        m[2] ?? '',
      ]),
    );
    const forged = new URLSearchParams(fields);
    forged.set('confirm', 'forged');
    const refused = await fetch(url.split('?')[0] as string, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: forged.toString(),
    });
    expect(refused.status).toBe(403);
    const confirmed = await fetch(url.split('?')[0] as string, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.get('cache-control')).toBe('no-store');
    const handoff = await confirmed.text();
    const action = (/<form id="handoff" method="post" action="([^"]+)"/.exec(handoff) as RegExpExecArray)[1] as string;
    expect(action).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const posted = new URLSearchParams(
      [...handoff.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [
        m[1] ?? '',
        m[2] ?? '',
      ]),
    );
    // A post with another state is refused; the real one is taken.
    const wrong = new URLSearchParams(posted);
    wrong.set('state', 'x'.repeat(32));
    expect((await fetch(action, { method: 'POST', body: wrong })).status).toBe(400);
    expect((await fetch(action, { method: 'POST', body: posted })).status).toBe(200);
    const done = await login.exited;
    expect(done.status).toBe(0);
    expect(done.stdout).toContain(`Logged in to ${base} as ${slug}@example.test`);

    // The first login without --context makes the context `default` (docs/cli.md).
    expect(done.stdout).toContain('context "default" saved');
    const saved = parse(readFileSync(join(browserHome, '.config/svc/config.yaml'), 'utf8'));
    expect(saved['current-context']).toBe('default');
    expect(saved.contexts.default['api-key']).toBe(posted.get('key'));
    const keys = JSON.parse((await svc(['key', 'list', '-o', 'json'], { home: browserHome })).stdout) as {
      api_keys: Array<{ name: string; role: string }>;
    };
    expect(keys.api_keys.find((k) => k.name.startsWith('svc CLI ('))).toMatchObject({ role: 'read' });
    rmSync(browserHome, { recursive: true, force: true });
  });

  it('completes commands and options for the shell', async () => {
    const script = await svc(['completion', 'bash']);
    expect(script.status).toBe(0);
    // What docs/cli.md says the bash script needs: bash-completion's function, and `svc` on PATH by that name.
    expect(script.stdout).toContain('_get_comp_words_by_ref -n "=:" cur prev words cword');
    expect(script.stdout).toContain('requestComp="svc complete -- ');
    const words = await svc(['complete', '--', 'app', 's']);
    const suggested = words.stdout.split('\n').map((l) => l.split('\t')[0]);
    expect(suggested).toEqual(expect.arrayContaining(['sync', 'status', 'scale']));
    const options = await svc(['complete', '--', 'app', 'sync', 'web', '--']);
    expect(options.stdout).toContain('--wait');
  });

  describeWith(tmuxRequirement())('in a terminal', () => {
    it('shows a spinner that follows the operation while it runs', async () => {
      const socket = `svc-cli-${slug}`;
      const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
      // Hold the git server so the operation is provably running while the screen is read.
      const hold = git.hold();
      const command = [
        'env',
        `HOME=${home}`,
        `PATH=${process.env['PATH'] ?? ''}`,
        'TERM=xterm-256color',
        process.execPath,
        SVC,
        'app',
        'sync',
        'web',
        '--wait',
        '--timeout',
        '3m',
      ]
        .map((w) => `'${w.replaceAll("'", "'\\''")}'`)
        .join(' ');
      tmux('new-session', '-d', '-s', 'cli', '-x', '160', '-y', '20', `${command}; echo EXIT=$?; sleep 60`);
      try {
        let screen = '';
        await waitUntil(
          async () => {
            screen = tmux('capture-pane', '-p', '-t', 'cli');
            return SPINNER.test(screen) && /web: Sync running/.test(screen);
          },
          { what: 'a spinner showing the running sync', timeoutMs: 60_000 },
        ).catch((err: Error) => {
          // What the terminal showed, and whether the operator's fetch was held at all, say which way it went.
          throw new Error(`${err.message}\nheld fetches: ${hold.waiting()}\nscreen:\n${screen}`);
        });
        expect(hold.waiting()).toBeGreaterThan(0);
        expect(screen).toMatch(/Sync requested for/);
        hold.release();
        await waitUntil(
          async () => {
            screen = tmux('capture-pane', '-p', '-t', 'cli');
            return /EXIT=\d+/.test(screen);
          },
          { what: 'the command to end', timeoutMs: 120_000 },
        );
        expect(screen).toMatch(/✔ web: Synced and Healthy/);
        expect(screen).toContain('EXIT=0');
      } finally {
        hold.release();
        try {
          tmux('kill-server');
        } catch {
          // Already gone.
        }
      }
    });
  });
});

describe('a client command’s footprint', () => {
  it('loads none of the server, operator or store code (only src/cli, src/core, the generated client and the client packages)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-trace-'));
    const hook = join(dir, 'hook.mjs');
    const trace = join(dir, 'modules.txt');
    writeFileSync(
      hook,
      `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({ resolve(specifier, context, next) {
  const resolved = next(specifier, context);
  appendFileSync(${JSON.stringify(trace)}, resolved.url + '\\n');
  return resolved;
} });
`,
    );
    try {
      const run = spawnSync(process.execPath, ['--import', hook, SVC, 'app', 'list'], {
        env: { PATH: process.env['PATH'] ?? '', HOME: dir },
        encoding: 'utf8',
      });
      expect(run.status).toBe(3);
      const loaded = readFileSync(trace, 'utf8')
        .split('\n')
        .filter((u) => u.startsWith('file:'));
      const ours = loaded.filter((u) => !u.includes('/node_modules/')).map((u) => u.slice(u.indexOf('/src/') + 1));
      const packages = new Set(
        loaded
          .filter((u) => u.includes('/node_modules/'))
          .map((u) => u.split('/node_modules/')[1]?.split('/').slice(0, 2).join('/')),
      );
      expect(ours).toContain('src/cli/client/app-commands.ts');
      expect(ours).toContain('src/client/client.ts');
      expect(ours.filter((p) => p.startsWith('src/') && !/^src\/(cli|core|client)\//.test(p))).toEqual([]);
      for (const pkg of packages)
        expect(pkg).toMatch(/^(commander\/|yaml\/|@bomb\.sh\/tab|openapi-fetch\/|eventsource-parser\/)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
