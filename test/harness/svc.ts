/**
 * `svc start` as a user runs it, in a child process: API, auth component, web UI and operator in one process,
 * against a given management kubeconfig, on free loopback ports, with its own data directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureForLeakScan } from './leak-registry.ts';
import { repoRoot } from './paths.ts';
import { freePort } from './ports.ts';
import { waitUntil } from './process.ts';

export interface SvcProcess {
  /** http://127.0.0.1:<port> */
  base: string;
  /** The operator's push receiver. */
  webhook: string;
  /** stdout and stderr so far. */
  output: string[];
  /** Its SVC_DATA_DIR (SQLite database, dev secrets), removed by stop(). */
  dataDir: string;
  stop(): Promise<void>;
}

/** Starts `svc start`; resolves once /healthz answers. `watchNamespace` narrows the operator to one org. */
export async function startSvc(options: {
  kubeconfig: string;
  watchNamespace?: string;
  syncPeriod?: string;
  env?: Record<string, string>;
  /** SVC_PUBLIC_URL: by default the server's own base URL; null leaves it unset (svc's default on localhost). */
  publicURL?: string | null;
}): Promise<SvcProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-start-'));
  const [apiPort, webhookPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${apiPort}`;
  const output: string[] = [];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(repoRoot, 'bin/svc.js'),
      'start',
      '--leader-elect=false',
      ...(options.watchNamespace ? [`--watch-namespace=${options.watchNamespace}`] : []),
      `--sync-period=${options.syncPeriod ?? '5s'}`,
      `--webhook-bind-address=127.0.0.1:${webhookPort}`,
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
    ],
    {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        SVC_MGMT_KUBECONFIG: options.kubeconfig,
        SVC_DATA_DIR: dataDir,
        SVC_LISTEN: `127.0.0.1:${apiPort}`,
        ...(options.publicURL === null ? {} : { SVC_PUBLIC_URL: options.publicURL ?? base }),
        SVC_LOG_LEVEL: 'warn',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (d) => output.push(String(d)));
  child.stderr?.on('data', (d) => output.push(String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    captureForLeakScan('svc start log', output.join(''));
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true, {
      what: `svc start ready (output: ${output.join('').slice(-500)})`,
      timeoutMs: 90_000,
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, webhook: `http://127.0.0.1:${webhookPort}`, output, dataDir, stop };
}
