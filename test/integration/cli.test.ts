/**
 * The `svc` executable as a new user runs it: `svc start` on the embedded default serves /healthz, keeps generated
 * dev secrets under its data directory, and answers every /api/v1/apps route with 503 and a message saying how to
 * configure a management cluster; bad configuration is reported all at once with exit status 2.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, repoRoot, waitUntil } from '../harness/index.ts';

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
