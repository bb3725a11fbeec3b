/**
 * The operator under test, as a child process exactly as users run it (`node bin/svc.js operator`), on loopback
 * ports, with its own data and cache directories; its pid is what the resource sampling reads.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, repoRoot, waitUntil } from '../../test/harness/index.ts';
import { makeTempDir, removeTempDir, startProcess } from '../../test/harness/process.ts';
import { childPids } from './proc.ts';

/** A running operator child process. */
export interface OperatorProcess {
  /** Pid of the node process itself (not its guard). */
  pid: number;
  webhookURL: string;
  metricsURL: string;
  logPath: string;
  /** Directory of V8 CPU profiles when started with `cpuProfile`. */
  profileDir: string | undefined;
  stop(): Promise<void>;
}

/** Options of {@link startOperatorProcess}. */
export interface OperatorProcessOptions {
  kubeconfigPath: string;
  /** Write a V8 CPU profile (`node --cpu-prof`) on exit. */
  cpuProfile?: boolean;
  /** SVC_LOG_LEVEL (default warn: logging every reconcile of 1000 Apps would be measured too). */
  logLevel?: string;
}

/** Starts `node bin/svc.js operator --leader-elect=false` and resolves once its /readyz answers 200. */
export async function startOperatorProcess(options: OperatorProcessOptions): Promise<OperatorProcess> {
  const dir = makeTempDir('bench-operator');
  const [metrics, probes, webhook] = await Promise.all([freePort(), freePort(), freePort()]);
  const profileDir = options.cpuProfile ? join(dir, 'profiles') : undefined;
  if (profileDir) await mkdir(profileDir);
  const proc = startProcess(
    'svc-operator',
    process.execPath,
    [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      join(repoRoot, 'bin', 'svc.js'),
      'operator',
      '--leader-elect=false',
      `--metrics-bind-address=127.0.0.1:${metrics}`,
      `--health-probe-bind-address=127.0.0.1:${probes}`,
      `--webhook-bind-address=127.0.0.1:${webhook}`,
    ],
    {
      logDir: dir,
      cwd: repoRoot,
      env: {
        ...process.env,
        SVC_MGMT_KUBECONFIG: options.kubeconfigPath,
        SVC_DATA_DIR: join(dir, 'data'),
        SVC_CACHE_DIR: join(dir, 'cache'),
        SVC_LOG_LEVEL: options.logLevel ?? 'warn',
        // Only `svc start` generates dev secrets; any role needs them set. Throwaway values for a throwaway run.
        AUTH_SECRET: randomBytes(32).toString('hex'),
        SVC_CREDENTIALS_KEY: randomBytes(32).toString('hex'),
      },
    },
  );
  try {
    await waitUntil(
      async () => {
        const res = await fetch(`http://127.0.0.1:${probes}/readyz`);
        return res.status === 200;
      },
      { what: 'svc operator /readyz', process: proc, timeoutMs: 60_000, intervalMs: 200 },
    );
  } catch (error) {
    await proc.stop();
    throw error;
  }
  const pid = childPids(proc.pid).find((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('svc.js');
    } catch {
      return false;
    }
  });
  if (pid === undefined) throw new Error('could not find the operator process under its guard');
  return {
    pid,
    webhookURL: `http://127.0.0.1:${webhook}`,
    metricsURL: `http://127.0.0.1:${metrics}/metrics`,
    logPath: proc.logPath,
    profileDir,
    async stop() {
      await proc.stop();
      if (!profileDir) removeTempDir(dir);
    },
  };
}
