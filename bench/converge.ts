/**
 * converge: N Git Apps (Kustomize, one shared fixture repo, each into its own namespace) created at once; the
 * time until every App is Synced and Healthy, with the operator's peak RSS and CPU seconds. Beside it, the limit
 * (./limit.ts) on a fresh plane of its own; the result reads as ours ÷ limit. With `source: 'helm'` the Apps are
 * HelmChart Apps of the same objects packaged as a chart in an HTTP chart repository (`^1.0.0`), written as
 * converge-helm-<N>.json.
 */
import { connect } from '../src/kube/index.ts';
import { apiserverRequestCounts, type ControlPlane, startChartRepo, startGitServer } from '../test/harness/index.ts';
import { runFlux } from './flux.ts';
import { APPS_NAMESPACE, appResource, fixtureChart, fixtureFiles, helmAppResource } from './lib/fixture.ts';
import { BENCH_THROUGHPUT, startBenchPlane } from './lib/plane.ts';
import { forEachLimit } from './lib/pool.ts';
import { cpuByCommand, cpuDelta, sampleProcess } from './lib/proc.ts';
import { writeResult } from './lib/results.ts';
import { summarize } from './lib/stats.ts';
import { keepProfiles, scrapeMetrics, stageTimes, startOperatorProcess } from './lib/svc-process.ts';
import { appReadyKey, appsPath, waitForAll } from './lib/wait.ts';
import { type Applier, runLimit, svcApplier } from './limit.ts';

/** Parameters of one converge run. */
export interface ConvergeParams {
  n: number;
  /** Concurrency of the limit loop: the operator's reconcile workers. */
  concurrency: number;
  /** Concurrency of creating the App resources. */
  createConcurrency: number;
  timeoutMs: number;
  cpuProfile: boolean;
  /** Skip the operator (measure the limit only). */
  limitOnly: boolean;
  /** Skip the limit (e.g. a before/after pair of operator-only runs). */
  noLimit?: boolean;
  /** Seconds to keep watching after convergence (steady-state cost); 0 skips. */
  steadySeconds: number;
  /** The operator's `--sync-period` when set (default its own, 60s). */
  syncPeriod?: string;
  /** Run Flux's kustomize-controller beside svc (./flux.ts); its `--concurrent` and Kustomization `wait`. */
  flux?: { concurrent: number; wait: boolean };
  /** Git Apps (default) or HelmChart Apps of the same objects. */
  source?: 'git' | 'helm';
}

/** The App resources' source: the fixture on the git server, or as a chart in a chart repository. */
async function startSource(kind: 'git' | 'helm') {
  if (kind === 'helm') {
    const charts = await startChartRepo();
    await charts.publish('bench', fixtureChart('1.0.0'));
    return { app: (i: number) => helmAppResource(i, charts.url), stop: () => charts.stop() };
  }
  const git = await startGitServer();
  const repo = await git.createRepo('bench-fixture', fixtureFiles());
  return { app: (i: number) => appResource(i, repo.url), stop: () => git.stop() };
}

/**
 * The operator's side: create N Apps, wait for all Synced and Healthy, sample the operator meanwhile. Also the direct
 * side of bench/appset.ts (the same Apps created one by one, beside one AppSet generating them).
 */
export async function runOurs(params: ConvergeParams, log: (line: string) => void) {
  const plane = await startBenchPlane('bench-ours');
  const source = await startSource(params.source ?? 'git');
  try {
    const operator = await startOperatorProcess({
      kubeconfigPath: plane.kubeconfigPath,
      cpuProfile: params.cpuProfile,
      ...(params.syncPeriod ? { syncPeriod: params.syncPeriod } : {}),
    });
    const { client, objects } = connect({ kubeconfigPath: plane.kubeconfigPath });
    try {
      await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: APPS_NAMESPACE } });
      const sampler = sampleProcess(operator.pid);
      const planeBefore = cpuByCommand(plane.dir);
      const requestsBefore = await apiserverRequestCounts(client);
      const idle = sampler.last();
      const createdAt: number[] = [];
      const start = performance.now();
      const ready = waitForAll(client, appsPath, params.n, appReadyKey(), start, params.timeoutMs, (count) => {
        if (count % Math.max(1, Math.floor(params.n / 10)) === 0) log(`  ${count}/${params.n} Synced+Healthy`);
      });
      ready.catch(() => undefined);
      await forEachLimit(params.n, params.createConcurrency, async (i) => {
        await client.request(appsPath, { method: 'POST', body: source.app(i) });
        createdAt.push(Number(((performance.now() - start) / 1000).toFixed(3)));
      });
      const allCreatedSeconds = Number(((performance.now() - start) / 1000).toFixed(3));
      const at = await ready;
      const planeAfter = cpuByCommand(plane.dir);
      const planeCpuSeconds = cpuDelta(planeBefore, planeAfter);
      const apiserverRequests = cpuDelta(requestsBefore, await apiserverRequestCounts(client));
      const metrics = await scrapeMetrics(operator.metricsURL);
      const final = sampler.last();
      const steady = await steadyState(
        params.steadySeconds,
        sampler,
        plane.dir,
        planeAfter,
        operator.metricsURL,
        metrics,
        log,
      );
      const samples = sampler.stop();
      const readySeconds = [...at.values()];
      await operator.stop();
      const profiles = operator.profileDir ? await keepProfiles(operator.profileDir, `converge-${params.n}`) : [];
      return {
        completed: at.size,
        totalSeconds: at.size === params.n ? Math.max(...readySeconds) : null,
        planeCpuSeconds,
        apiserverRequests,
        steady,
        allCreatedSeconds,
        ready: summarize(readySeconds),
        operator: {
          peakRssMiB: final?.hwmMiB,
          idleRssMiB: idle?.rssMiB,
          cpuSeconds: final && idle ? Number((final.cpuSeconds - idle.cpuSeconds).toFixed(2)) : undefined,
          cpuSecondsIncludingStart: final?.cpuSeconds,
          childCpuSeconds:
            final && idle ? Number((final.childCpuSeconds - idle.childCpuSeconds).toFixed(2)) : undefined,
          profiles,
          metrics,
          stages: stageTimes(metrics),
        },
        samples: { createdSeconds: createdAt, readySeconds, operator: samples },
      };
    } finally {
      await client.dropConnections();
      await operator.stop();
    }
  } finally {
    await source.stop();
    await plane.stop();
  }
}

/**
 * After convergence nothing changes, yet every App is resynced each sync period (60 s): the cost of keeping N
 * Apps converged, measured over `seconds` as CPU seconds per second (1.0 = one core busy).
 */
async function steadyState(
  seconds: number,
  sampler: ReturnType<typeof sampleProcess>,
  planeDir: string,
  planeBefore: Record<string, number>,
  metricsURL: string,
  metricsBefore: Record<string, number>,
  log: (line: string) => void,
) {
  if (seconds <= 0) return undefined;
  log(`  steady state: watching for ${seconds} s`);
  const before = sampler.last();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = sampler.last();
  const metrics = await scrapeMetrics(metricsURL);
  const reconciles = (m: Record<string, number>) => m['svc_reconcile_total{result="success"}'] ?? 0;
  const perSecond = (x: number) => Number((x / seconds).toFixed(3));
  const plane = cpuDelta(planeBefore, cpuByCommand(planeDir));
  return {
    seconds,
    reconciles: reconciles(metrics) - reconciles(metricsBefore),
    operatorCpuPerSecond: before && after ? perSecond(after.cpuSeconds - before.cpuSeconds) : undefined,
    childCpuPerSecond: before && after ? perSecond(after.childCpuSeconds - before.childCpuSeconds) : undefined,
    planeCpuPerSecond: perSecond(Object.values(plane).reduce((a, b) => a + b, 0)),
    planeCpuSeconds: plane,
    rssMiBAtEnd: after?.rssMiB,
  };
}

/** The limit on its own fresh plane. */
async function runLimitOnFreshPlane(params: ConvergeParams, makeApplier: (plane: ControlPlane) => Applier) {
  const plane = await startBenchPlane('bench-limit');
  try {
    return await runLimit(plane, makeApplier(plane), params);
  } finally {
    await plane.stop();
  }
}

/** Runs converge at `params.n` and writes bench/results/converge-<n>.json (converge-helm-<n>.json for HelmChart Apps). */
export async function converge(params: ConvergeParams, log: (line: string) => void): Promise<string> {
  let limit: Awaited<ReturnType<typeof runLimitOnFreshPlane>> | undefined;
  if (!params.noLimit) {
    log(`converge n=${params.n}: limit (bare apply loop, concurrency ${params.concurrency})`);
    limit = await runLimitOnFreshPlane(params, (plane) => svcApplier(plane.kubeconfigPath));
    log(`  limit: ${limit.totalSeconds} s`);
  }
  let ours: Awaited<ReturnType<typeof runOurs>> | undefined;
  if (!params.limitOnly) {
    log(`converge n=${params.n}: svc operator`);
    ours = await runOurs(params, log);
    log(
      `  ours: ${ours.totalSeconds} s, operator peak RSS ${ours.operator.peakRssMiB} MiB, ${ours.operator.cpuSeconds} CPU s`,
    );
  }
  let flux: Awaited<ReturnType<typeof runFlux>> | undefined;
  if (!params.limitOnly && params.flux && (params.source ?? 'git') === 'git') {
    log(
      `converge n=${params.n}: Flux kustomize-controller (--concurrent=${params.flux.concurrent}, wait: ${params.flux.wait})`,
    );
    flux = await runFlux(
      { n: params.n, ...params.flux, createConcurrency: params.createConcurrency, timeoutMs: params.timeoutMs },
      log,
    );
    log(
      `  flux: ${flux.totalSeconds} s, controller peak RSS ${flux.controllerProcess.peakRssMiB} MiB, ${flux.controllerProcess.cpuSeconds} CPU s`,
    );
  }
  const ratio = (a: number | null | undefined, b: number | null | undefined) =>
    a && b ? Number((a / b).toFixed(2)) : undefined;
  const name = params.source === 'helm' ? `converge-helm-${params.n}` : `converge-${params.n}`;
  return writeResult(name, {
    parameters: { ...params, controlPlane: BENCH_THROUGHPUT },
    summary: {
      n: params.n,
      source: params.source ?? 'git',
      oursSeconds: ours?.totalSeconds,
      limitSeconds: limit?.totalSeconds,
      oursOverLimit: ratio(ours?.totalSeconds, limit?.totalSeconds),
      oursCompleted: ours?.completed,
      fluxSeconds: flux?.totalSeconds,
      fluxCompleted: flux?.completed,
      fluxOverOurs: ratio(flux?.totalSeconds, ours?.totalSeconds),
      fluxPeakRssMiB: flux?.controllerProcess.peakRssMiB,
      fluxCpuSeconds: flux?.controllerProcess.cpuSeconds,
      operatorPeakRssMiB: ours?.operator.peakRssMiB,
      operatorCpuSeconds: ours?.operator.cpuSeconds,
      steadyOperatorCpuPerSecond: ours?.steady?.operatorCpuPerSecond,
      steadyChildCpuPerSecond: ours?.steady?.childCpuPerSecond,
      steadyPlaneCpuPerSecond: ours?.steady?.planeCpuPerSecond,
    },
    ours,
    flux,
    limit,
  });
}
