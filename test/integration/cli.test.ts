/**
 * The `svc` executable as a new user runs it: `svc start` on the embedded default serves /healthz, keeps generated
 * dev secrets under its data directory, and answers every /api/v1/apps route with 503 and a message saying how to
 * configure a management cluster; `svc server` on the data directory `svc start` made reads the same dev secrets
 * (never in production mode); bad configuration is reported all at once with exit status 2.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, repoRoot, SvcHttp, waitUntil } from '../harness/index.ts';

const svc = join(repoRoot, 'bin/svc.js');
const baseEnv = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' };

describe('svc start on the embedded default', () => {
  let child: ChildProcess;
  let dataDir: string;
  let base: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env = { ...baseEnv, SVC_DATA_DIR: dataDir, SVC_LISTEN: `127.0.0.1:${port}`, SVC_LOG_LEVEL: 'warn' };
    child = spawn(process.execPath, [svc, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    await waitUntil(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok === true, {
      what: 'svc start serving /healthz',
      timeoutMs: 30_000,
    });
  });

  afterAll(() => {
    child?.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves /healthz and /readyz', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it.each([
    ['GET', '/api/v1/apps'],
    ['POST', '/api/v1/apps'],
    ['GET', '/api/v1/apps/shop/web/status'],
    ['POST', '/api/v1/apps/shop/web/sync'],
  ])('answers %s %s with 503 and how to configure a cluster', async (method, path) => {
    const res = await fetch(`${base}${path}`, { method });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { error: string };
    expect(body.error).toMatch(/SVC_MGMT_KUBECONFIG/);
  });

  it('keeps generated dev secrets in its data directory, readable by the owner only', () => {
    const file = join(dataDir, 'dev-secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(readFileSync(file, 'utf8'));
    expect(secrets.authSecret.length).toBeGreaterThanOrEqual(32);
    expect(Buffer.from(secrets.credentialsKey, 'base64')).toHaveLength(32);
  });
});

/** Starts `svc <role>` on `dataDir`, listening on a free port; resolves once /readyz answers. */
async function startRole(role: 'start' | 'server', dataDir: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const output: string[] = [];
  const child = spawn(process.execPath, [svc, role], {
    env: { ...baseEnv, SVC_DATA_DIR: dataDir, SVC_LISTEN: `127.0.0.1:${port}`, SVC_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => output.push(String(d)));
  child.stderr.on('data', (d) => output.push(String(d)));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  await waitUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`svc ${role} exited ${child.exitCode}: ${output.join('')}`);
      return (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true;
    },
    { what: `svc ${role} ready`, timeoutMs: 30_000 },
  ).catch(async (err) => {
    await stop();
    throw err;
  });
  return { base, stop };
}

describe('svc server on the data directory svc start made', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-server-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('reads the same dev secrets outside production: sessions and sealed credentials still open', async () => {
    const first = await startRole('start', dataDir);
    const user = new SvcHttp(first.base);
    let registryId = '';
    const closed = `127.0.0.1:${await freePort()}`;
    try {
      expect((await user.signUp('dev@example.test', 'Dev')).status).toBe(200);
      expect((await user.createOrg('Dev', 'dev')).status).toBe(200);
      // A password sealed with the generated SVC_CREDENTIALS_KEY.
      const registry = await user.call<{ id: string }>('POST', '/api/v1/registries', {
        name: 'local',
        host: closed,
        insecure: true,
        username: 'ci',
        password: 'sealed-pw',
      });
      expect(registry.status, JSON.stringify(registry.body)).toBe(201);
      registryId = registry.body.id;
    } finally {
      await first.stop();
    }

    // No AUTH_SECRET, no SVC_CREDENTIALS_KEY: before, svc server exited 2 saying both were required.
    const server = await startRole('server', dataDir);
    try {
      // The same session, now against svc server (its own origin).
      const again = new SvcHttp(server.base);
      again.cookie = user.cookie;
      const me = await again.call('GET', '/api/v1/auth/me');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ user: { email: 'dev@example.test' } });
      // Opening the sealed password works (the same key): the test then fails on the network, not on the seal.
      const tested = await again.call('POST', `/api/v1/registries/${registryId}/test`);
      expect(tested.body).toMatchObject({ status: 'error', errorClass: 'connect' });
    } finally {
      await server.stop();
    }
  });

  it('never reads them in production mode', () => {
    const result = spawnSync(process.execPath, [svc, 'server'], {
      env: { ...baseEnv, NODE_ENV: 'production', SVC_DATA_DIR: dataDir, SVC_LISTEN: '127.0.0.1:0' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('AUTH_SECRET is required in production mode');
    expect(result.stderr).toContain('SVC_CREDENTIALS_KEY is required in production mode');
  });
});

describe('svc configuration errors', () => {
  it('reports every problem together and exits with status 2', () => {
    const result = spawnSync(
      process.execPath,
      [svc, 'operator', '--sync-period', 'often', '--leader-elect', 'perhaps'],
      {
        env: { ...baseEnv, NODE_ENV: 'production', SVC_LISTEN: 'nowhere', SVC_DATABASE_URL: 'mysql://db' },
        encoding: 'utf8',
      },
    );
    expect(result.status).toBe(2);
    for (const problem of [
      'SVC_LISTEN "nowhere" must be host:port or :port',
      'SVC_DATABASE_URL must start with postgres://',
      '--leader-elect must be true or false',
      '--sync-period "often" must be a duration',
    ]) {
      expect(result.stderr).toContain(problem);
    }
    expect(result.stderr).not.toContain('AUTH_SECRET');
    expect(result.stderr).not.toContain('SVC_CREDENTIALS_KEY');
  });

  it('prints its version and help', () => {
    const version = spawnSync(process.execPath, [svc, '--version'], { env: baseEnv, encoding: 'utf8' });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = spawnSync(process.execPath, [svc, '--help'], { env: baseEnv, encoding: 'utf8' });
    for (const cmd of ['start', 'server', 'operator']) expect(help.stdout).toContain(cmd);
  });
});
