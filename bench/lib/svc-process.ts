/**
 * svc under test as child processes, exactly as users run them (`node bin/svc.js operator|server`), on loopback
 * ports with their own data and cache directories; the pid of the node process is what resource sampling reads.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot, waitUntil } from '../../test/harness/index.ts';
import { makeTempDir, removeTempDir, startProcess } from '../../test/harness/process.ts';
import { childPids } from './proc.ts';

/** A running svc child process. */
export interface SvcProcess {
  /** Pid of the node process itself (not its guard). */
  pid: number;
  logPath: string;
  /** Directory of V8 CPU profiles when started with `cpuProfile` (kept until this process exits). */
  profileDir: string | undefined;
  stop(): Promise<void>;
}

/** Options shared by both roles. */
export interface SvcProcessOptions {
  kubeconfigPath: string;
  /** Write a V8 CPU profile (`node --cpu-prof`) on exit. */
  cpuProfile?: boolean;
  /** SVC_LOG_LEVEL (default warn: logging every reconcile or request would be measured too). */
  logLevel?: string;
  /** Operator only: `--sync-period` (default: the operator's own, 60s). */
  syncPeriod?: string;
  /** More environment for the process (e.g. SVC_OPERATOR_SHARDING). */
  env?: Record<string, string>;
}

async function startSvc(
  role: 'operator' | 'server',
  args: string[],
  env: Record<string, string>,
  readyURL: string,
  options: SvcProcessOptions,
): Promise<SvcProcess> {
  const dir = makeTempDir(`bench-${role}`);
  const profileDir = options.cpuProfile ? join(dir, 'profiles') : undefined;
  if (profileDir) await mkdir(profileDir);
  const proc = startProcess(
    `svc-${role}`,
    process.execPath,
    [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      join(repoRoot, 'bin', 'svc.js'),
      role,
      ...args,
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
        // Only `svc start` generates dev secrets; the other roles need them set. Throwaway values for a throwaway run.
        AUTH_SECRET: randomBytes(32).toString('hex'),
        SVC_CREDENTIALS_KEY: randomBytes(32).toString('hex'),
        ...env,
        ...options.env,
      },
    },
  );
  try {
    await waitUntil(async () => (await fetch(readyURL)).status === 200, {
      what: `svc ${role} ${readyURL}`,
      process: proc,
      timeoutMs: 60_000,
      intervalMs: 200,
    });
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
  if (pid === undefined) throw new Error(`could not find the svc ${role} process under its guard`);
  return {
    pid,
    logPath: proc.logPath,
    profileDir,
    async stop() {
      await proc.stop();
      if (!profileDir) removeTempDir(dir);
    },
  };
}

/** A running `svc operator`. */
export interface OperatorProcess extends SvcProcess {
  webhookURL: string;
  metricsURL: string;
}

/** Starts `node bin/svc.js operator --leader-elect=false` and resolves once its /readyz answers 200. */
export async function startOperatorProcess(options: SvcProcessOptions): Promise<OperatorProcess> {
  const [metrics, probes, webhook] = await Promise.all([freePort(), freePort(), freePort()]);
  const proc = await startSvc(
    'operator',
    [
      '--leader-elect=false',
      `--metrics-bind-address=127.0.0.1:${metrics}`,
      `--health-probe-bind-address=127.0.0.1:${probes}`,
      `--webhook-bind-address=127.0.0.1:${webhook}`,
      ...(options.syncPeriod ? [`--sync-period=${options.syncPeriod}`] : []),
    ],
    {},
    `http://127.0.0.1:${probes}/readyz`,
    options,
  );
  return { ...proc, webhookURL: `http://127.0.0.1:${webhook}`, metricsURL: `http://127.0.0.1:${metrics}/metrics` };
}

/** A running `svc server`. */
export interface ServerProcess extends SvcProcess {
  /** `http://127.0.0.1:<port>`. */
  baseURL: string;
}

/** Starts `node bin/svc.js server` (SQLite in a temp dir) and resolves once its /readyz answers 200. */
export async function startServerProcess(options: SvcProcessOptions): Promise<ServerProcess> {
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const proc = await startSvc(
    'server',
    [],
    { SVC_LISTEN: `127.0.0.1:${port}`, SVC_PUBLIC_URL: baseURL },
    `${baseURL}/readyz`,
    options,
  );
  return { ...proc, baseURL };
}

/** Copies V8 CPU profiles out of the process's temp dir (removed at exit) into $TMPDIR/svc-bench-profiles/. */
export async function keepProfiles(dir: string, label: string): Promise<string[]> {
  const out = join(tmpdir(), 'svc-bench-profiles');
  await mkdir(out, { recursive: true });
  const kept: string[] = [];
  for (const file of await readdir(dir)) {
    const target = join(out, `${label}-${file}`);
    await copyFile(join(dir, file), target);
    kept.push(target);
  }
  return kept;
}

/**
 * The operator's own view at the end of a run, from its Prometheus endpoint: heap, external memory, event-loop
 * lag and reconcile counts/durations (the `nodejs_*`, `process_*` and `svc_reconcile*` series), as name → value.
 */
export async function scrapeMetrics(metricsURL: string): Promise<Record<string, number>> {
  const wanted =
    /^(nodejs_(heap_size|external_memory|eventloop_lag|active_handles_total|gc_duration_seconds_(sum|count))|process_(resident_memory|cpu_seconds_total)|svc_reconcile|svc_selfheal)/;
  const out: Record<string, number> = {};
  try {
    const text = await (await fetch(metricsURL)).text();
    for (const line of text.split('\n')) {
      if (!line || line.startsWith('#') || !wanted.test(line)) continue;
      const cut = line.lastIndexOf(' ');
      out[line.slice(0, cut)] = Number(line.slice(cut + 1));
    }
  } catch {
    // An operator without a metrics endpoint: nothing to record.
  }
  return out;
}

/**
 * Where reconcile time went: per step of svc_reconcile_stage_duration_seconds (from `scrapeMetrics`), how many
 * times it ran, its total and mean milliseconds. `before` (an earlier scrape) is subtracted when given.
 */
export function stageTimes(
  metrics: Record<string, number>,
  before: Record<string, number> = {},
): Record<string, { count: number; totalMs: number; meanMs: number }> {
  const out: Record<string, { count: number; totalMs: number; meanMs: number }> = {};
  for (const [series, value] of Object.entries(metrics)) {
    const m = /^svc_reconcile_stage_duration_seconds_count\{stage="([^"]+)"\}$/.exec(series);
    if (!m) continue;
    const stage = m[1] as string;
    const sumKey = `svc_reconcile_stage_duration_seconds_sum{stage="${stage}"}`;
    const count = value - (before[series] ?? 0);
    const total = ((metrics[sumKey] ?? 0) - (before[sumKey] ?? 0)) * 1000;
    if (count > 0) out[stage] = { count, totalMs: Math.round(total), meanMs: Number((total / count).toFixed(2)) };
  }
  return out;
}
