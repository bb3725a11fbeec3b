/**
 * `svc start` as a user runs it, for the tests that drive the real executable end to end (e2e-start, cli-client):
 * API, auth component and operator in one process against the harness's management plane, on loopback ports, its
 * data in a temporary directory, reconciling only the given org's namespace.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { freePort, repoRoot, waitUntil } from '../harness/index.ts';

/** A running `svc start`. */
export interface RunningSvc {
  /** The API's base URL, `http://127.0.0.1:<port>` (SVC_PUBLIC_URL is left at its default on localhost). */
  base: string;
  /** The push receiver's base URL. */
  webhook: string;
  /** What the process printed, for a failing test to show. */
  output: string[];
  stop(): void;
}

/** Starts `svc start` for the org `slug` and resolves once /readyz answers 200. */
export async function startSvc(slug: string): Promise<RunningSvc> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-start-'));
  const [apiPort, webhookPort] = [await freePort(), await freePort()];
  const output: string[] = [];
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, 'bin/svc.js'),
      'start',
      '--leader-elect=false',
      `--watch-namespace=org-${slug}`,
      '--sync-period=5s',
      `--webhook-bind-address=127.0.0.1:${webhookPort}`,
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
    ],
    {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        SVC_MGMT_KUBECONFIG: inject('mgmtKubeconfig'),
        SVC_DATA_DIR: dataDir,
        SVC_LISTEN: `127.0.0.1:${apiPort}`,
        SVC_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (d) => output.push(String(d)));
  child.stderr?.on('data', (d) => output.push(String(d)));
  const base = `http://127.0.0.1:${apiPort}`;
  const stop = () => {
    child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true, {
      what: 'svc start ready',
      timeoutMs: 60_000,
    });
  } catch (err) {
    stop();
    throw new Error(`${(err as Error).message}\n${output.join('')}`);
  }
  return { base, webhook: `http://127.0.0.1:${webhookPort}`, output, stop };
}
