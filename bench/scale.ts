/**
 * scale: N Apps converged by 1, 2 and 4 sharded operator replicas (issue 29 item 3), each replica count on a fresh
 * plane. Per run: the time until every App is Synced and Healthy; per replica its share of the Apps (its
 * `svc_operator_shard_apps` gauge), CPU seconds and peak RSS; the steady-state CPU once converged; and, with more
 * than one replica, the hand-over: one replica is killed (SIGKILL, no Lease release) and the clock runs until the
 * survivors' shares cover every App again. The workload is one ConfigMap per App by default (./lib/fixture.ts
 * `configMapFixtureFiles`: 20,000 Deployments would measure kwok's one node, not the operators); `--scale-fixture=
 * deployment` uses the converge fixture with the fake node raised to hold every Pod.
 */
import { connect } from '../src/kube/index.ts';
import { apiserverRequestCounts, startControlPlane, startGitServer } from '../test/harness/index.ts';
import { APPS_NAMESPACE, appResource, configMapFixtureFiles, fixtureFiles } from './lib/fixture.ts';
import { BENCH_THROUGHPUT } from './lib/plane.ts';
import { forEachLimit } from './lib/pool.ts';
import { cpuByCommand, cpuDelta, type ProcSample, sampleProcess } from './lib/proc.ts';
import { writeResult } from './lib/results.ts';
import { summarize } from './lib/stats.ts';
import { type OperatorProcess, scrapeMetrics, startOperatorProcess } from './lib/svc-process.ts';
import { appReadyKey, appsPath, waitForAll } from './lib/wait.ts';

/** Parameters of one scale run. */
export interface ScaleParams {
  n: number;
  /** Operator replica counts, one fresh plane each (1 runs unsharded, as a single operator runs by default). */
  replicas: number[];
  fixture: 'configmap' | 'deployment';
  /** Seconds of steady state measured after convergence; 0 skips. */
  steadySeconds: number;
  timeoutMs: number;
  createConcurrency: number;
}

/** The `svc_operator_shard_*` gauges of one replica (undefined unsharded or unreachable). */
async function shardGauges(op: OperatorProcess): Promise<{ apps: number; members: number } | undefined> {
  try {
    const text = await (await fetch(op.metricsURL)).text();
    const gauge = (name: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? undefined : Number(line.slice(name.length + 1));
    };
    const apps = gauge('svc_operator_shard_apps');
    const members = gauge('svc_operator_shard_members');
    return apps === undefined || members === undefined ? undefined : { apps, members };
  } catch {
    return undefined;
  }
}

/** Polls until `check` holds (every 250 ms) and answers the seconds it took, or undefined after `timeoutMs`. */
async function secondsUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<number | undefined> {
  const start = performance.now();
  while (performance.now() - start < timeoutMs) {
    if (await check()) return Number(((performance.now() - start) / 1000).toFixed(2));
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return undefined;
}

const cpuBetween = (a: ProcSample | undefined, b: ProcSample | undefined) =>
  a && b ? Number((b.cpuSeconds - a.cpuSeconds).toFixed(2)) : undefined;

/** Starts `count` operator processes (sharded by App when more than one) and waits until all see each other. */
async function startReplicas(kubeconfigPath: string, count: number, timeoutMs: number): Promise<OperatorProcess[]> {
  const env: Record<string, string> = count > 1 ? { SVC_OPERATOR_SHARDING: 'app' } : {};
  const ops: OperatorProcess[] = [];
  for (let i = 0; i < count; i++) ops.push(await startOperatorProcess({ kubeconfigPath, env }));
  if (count > 1) {
    const joined = await secondsUntil(
      async () => (await Promise.all(ops.map(shardGauges))).every((g) => g?.members === count),
      timeoutMs,
    );
    if (joined === undefined) throw new Error(`the ${count} replicas did not all join the membership`);
  }
  return ops;
}

/** One replica count on its own plane: converge, steady state, hand-over. */
async function runReplicas(params: ScaleParams, count: number, log: (line: string) => void) {
  const nodePods = params.fixture === 'deployment' ? Math.max(BENCH_THROUGHPUT.nodePods, params.n + 100) : 110;
  const plane = await startControlPlane({
    name: `bench-scale-${count}`,
    throughput: { ...BENCH_THROUGHPUT, nodePods },
  });
  const git = await startGitServer();
  const ops: OperatorProcess[] = [];
  try {
    const files = params.fixture === 'deployment' ? fixtureFiles() : configMapFixtureFiles();
    const repo = await git.createRepo('bench-scale', files);
    const { client, objects } = connect({ kubeconfigPath: plane.kubeconfigPath });
    await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: APPS_NAMESPACE } });
    ops.push(...(await startReplicas(plane.kubeconfigPath, count, params.timeoutMs)));
    const samplers = ops.map((op) => sampleProcess(op.pid, 1000));
    const idle = samplers.map((s) => s.last());
    const planeBefore = cpuByCommand(plane.dir);
    const requestsBefore = await apiserverRequestCounts(client);
    const start = performance.now();
    const ready = waitForAll(client, appsPath, params.n, appReadyKey(), start, params.timeoutMs, (done) => {
      if (done % Math.max(1, Math.floor(params.n / 10)) === 0) log(`  ${done}/${params.n} Synced+Healthy`);
    });
    ready.catch(() => undefined);
    await forEachLimit(params.n, params.createConcurrency, async (i) => {
      await client.request(appsPath, { method: 'POST', body: appResource(i, repo.url) });
    });
    const at = await ready;
    const converged = samplers.map((s) => s.last());
    const planeCpuSeconds = cpuDelta(planeBefore, cpuByCommand(plane.dir));
    const apiserverRequests = cpuDelta(requestsBefore, await apiserverRequestCounts(client));
    const shares = await Promise.all(ops.map(shardGauges));

    let steady: Array<number | undefined> | undefined;
    if (params.steadySeconds > 0) {
      log(`  steady state: ${params.steadySeconds} s`);
      await new Promise((resolve) => setTimeout(resolve, params.steadySeconds * 1000));
      steady = samplers.map((s, i) => {
        const cpu = cpuBetween(converged[i], s.last());
        return cpu === undefined ? undefined : Number((cpu / params.steadySeconds).toFixed(3));
      });
    }
    const metrics = await Promise.all(ops.map((op) => scrapeMetrics(op.metricsURL)));
    const handOver = count > 1 ? await killOne(ops, params) : undefined;
    if (handOver) log(`  hand-over after a kill: ${handOver.seconds ?? 'not within the timeout'} s`);
    const samples = samplers.map((s) => s.stop());
    const readySeconds = [...at.values()];
    return {
      replicas: count,
      completed: at.size,
      totalSeconds: at.size === params.n ? Math.max(...readySeconds) : null,
      ready: summarize(readySeconds),
      planeCpuSeconds,
      apiserverRequests,
      perReplica: ops.map((_op, i) => ({
        share: count === 1 ? params.n : shares[i]?.apps,
        cpuSecondsToConverge: cpuBetween(idle[i], converged[i]),
        peakRssMiB: samples[i]?.at(-1)?.hwmMiB ?? converged[i]?.hwmMiB,
        steadyCpuPerSecond: steady?.[i],
        metrics: metrics[i],
      })),
      handOver,
      samples: { readySeconds, operators: samples },
    };
  } finally {
    for (const op of ops) await op.stop().catch(() => undefined);
    await git.stop();
    await plane.stop();
  }
}

/** Kills the first replica without releasing its Lease; the seconds until the survivors' shares cover every App. */
async function killOne(ops: OperatorProcess[], params: ScaleParams) {
  const victim = ops[0] as OperatorProcess;
  const survivors = ops.slice(1);
  process.kill(victim.pid, 'SIGKILL');
  const seconds = await secondsUntil(async () => {
    const gauges = await Promise.all(survivors.map(shardGauges));
    const total = gauges.reduce((sum, g) => sum + (g?.apps ?? 0), 0);
    return gauges.every((g) => g?.members === survivors.length) && total === params.n;
  }, params.timeoutMs);
  const shares = (await Promise.all(survivors.map(shardGauges))).map((g) => g?.apps);
  return { killedIndex: 0, seconds, survivorShares: shares };
}

/** Runs scale at `params.n` for each replica count and writes bench/results/scale-<n>.json. */
export async function scale(params: ScaleParams, log: (line: string) => void): Promise<string> {
  const runs = [];
  for (const count of params.replicas) {
    log(`scale n=${params.n}: ${count} operator replica(s), ${params.fixture} fixture`);
    const run = await runReplicas(params, count, log);
    log(
      `  ${run.totalSeconds ?? `${run.completed}/${params.n} (timeout)`} s; shares ${run.perReplica.map((r) => r.share).join('/')}`,
    );
    runs.push(run);
  }
  return writeResult(`scale-${params.n}`, { params, runs });
}
