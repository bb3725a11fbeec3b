/**
 * drift: `among` Apps (1000) with `selfHeal: true`, converged; then the operator's steady-state CPU over `steady`
 * seconds with nothing changing (selfHeal is event-driven: no periodic full diff of every object), and per round
 * `k` Apps' Deployments (1, then 100) drifted by another field manager (`spec.replicas: 3`, a merge patch as
 * `kubectl scale` sends it) and timed until svc re-applied `replicas: 1` (seen through a watch: the Deployment's
 * generation moved past the drift's and its replicas are back). Each round drifts Apps not drifted before, so the
 * selfHeal brake (N reverts in a window) never meets the benchmark. Issue 25's done-when figures.
 */
import { connect, type KubeClient, type AnyObject as Obj } from '../src/kube/index.ts';
import { apiserverRequestCounts, startGitServer } from '../test/harness/index.ts';
import { APPS_NAMESPACE, appName, appResource, destinationNamespace, fixtureFiles } from './lib/fixture.ts';
import { BENCH_THROUGHPUT, startBenchPlane } from './lib/plane.ts';
import { forEachLimit } from './lib/pool.ts';
import { cpuDelta, sampleProcess } from './lib/proc.ts';
import { writeResult } from './lib/results.ts';
import { summarize } from './lib/stats.ts';
import { scrapeMetrics, startOperatorProcess } from './lib/svc-process.ts';
import { appReadyKey, appsPath, waitForAll } from './lib/wait.ts';

/** Parameters of the drift benchmark. */
export interface DriftParams {
  /** Apps in all, every one selfHealing. */
  among: number;
  /** Apps drifted at once, one measurement each (default 1 and 100). */
  drifted: number[];
  rounds: number;
  /** Seconds of steady state measured after the converge. */
  steadySeconds: number;
  timeoutMs: number;
}

const deploymentsPath = '/apis/apps/v1/deployments';

/** Runs the drift benchmark and writes bench/results/drift-<among>.json. */
export async function drift(params: DriftParams, log: (line: string) => void): Promise<string> {
  const plane = await startBenchPlane('bench-drift');
  const git = await startGitServer();
  const { client, objects } = connect({ kubeconfigPath: plane.kubeconfigPath });
  try {
    const repo = await git.createRepo('bench-drift', fixtureFiles('v1'));
    const operator = await startOperatorProcess({ kubeconfigPath: plane.kubeconfigPath });
    try {
      await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: APPS_NAMESPACE } });
      const sampler = sampleProcess(operator.pid);
      log(`drift: creating ${params.among} selfHealing Apps`);
      const setupStart = performance.now();
      const settled = waitForAll(client, appsPath, params.among, appReadyKey(), setupStart, params.timeoutMs);
      settled.catch(() => undefined);
      await forEachLimit(params.among, 8, (i) =>
        client.request(appsPath, { method: 'POST', body: appResource(i, repo.url, { selfHeal: true }) }).then(() => {}),
      );
      const setup = await settled;
      if (setup.size < params.among) throw new Error(`only ${setup.size}/${params.among} Apps converged in time`);
      log(`  all Synced+Healthy after ${Math.max(...setup.values())} s`);

      const steady = await measureSteady(client, sampler, params.steadySeconds);
      log(`  steady state: operator ${steady.operatorCpuPercent}% of a core, ${steady.apiserverRequests} requests`);
      const metricsBefore = await scrapeMetrics(operator.metricsURL);

      const runs = [];
      let next = 0;
      for (const k of params.drifted) {
        const rounds = [];
        for (let round = 1; round <= params.rounds; round++) {
          const apps = Array.from({ length: k }, (_, j) => (next + j) % params.among);
          next += k;
          const seconds = await driftRound(client, apps, params.timeoutMs);
          if (seconds.length < k) log(`  ${k} drifted, round ${round}: only ${seconds.length}/${k} reverted in time`);
          const summary = summarize(seconds);
          log(`  ${k} drifted, round ${round}: reverted p50 ${summary.p50} s, p95 ${summary.p95} s`);
          rounds.push({ round, reverted: summary, samples: seconds });
        }
        runs.push({ drifted: k, reverted: summarize(rounds.flatMap((r) => r.samples)), rounds });
      }
      // The watch may see a revert before the operator counted it: let the counter catch up before reading it.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const metricsAfter = await scrapeMetrics(operator.metricsURL);
      const samples = sampler.stop();
      return writeResult(`drift-${params.among}`, {
        parameters: { ...params, controlPlane: BENCH_THROUGHPUT },
        summary: {
          among: params.among,
          setupConvergeSeconds: Math.max(...setup.values()),
          reverted: Object.fromEntries(runs.map((r) => [`${r.drifted}`, r.reverted])),
          steady,
          selfHealReverts: selfHealReverts(metricsAfter) - selfHealReverts(metricsBefore),
          operatorPeakRssMiB: samples.at(-1)?.hwmMiB,
        },
        runs,
        operatorSamples: samples,
      });
    } finally {
      await operator.stop();
    }
  } finally {
    await client.dropConnections();
    await git.stop();
    await plane.stop();
  }
}

/** The operator's CPU and the apiserver's requests over `seconds` with nothing changing. */
async function measureSteady(client: KubeClient, sampler: ReturnType<typeof sampleProcess>, seconds: number) {
  const requestsBefore = await apiserverRequestCounts(client);
  const before = sampler.last();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = sampler.last();
  const requests = cpuDelta(requestsBefore, await apiserverRequestCounts(client));
  const cpu = after && before ? after.cpuSeconds - before.cpuSeconds : Number.NaN;
  return {
    seconds,
    operatorCpuSeconds: Number(cpu.toFixed(2)),
    operatorCpuPercent: Number(((cpu / seconds) * 100).toFixed(1)),
    apiserverRequests: Object.values(requests).reduce((a, b) => a + b, 0),
    apiserverRequestsByVerb: requests,
  };
}

/**
 * Drifts the Deployments of `apps` (merge patch under field manager `bench-drift`) and answers, per App, the seconds
 * from its own drift until the watch saw svc's revert.
 */
async function driftRound(client: KubeClient, apps: number[], timeoutMs: number): Promise<number[]> {
  const start = performance.now();
  const driftedAt = new Map<string, { at: number; generation: number }>();
  const reverted = waitForAll(
    client,
    deploymentsPath,
    apps.length,
    (obj: Obj) => {
      const app = obj.metadata.labels?.['cd.svc.space/app'];
      const drifted = app ? driftedAt.get(app) : undefined;
      const generation = (obj.metadata as { generation?: number }).generation ?? 0;
      const replicas = (obj['spec'] as { replicas?: number } | undefined)?.replicas;
      return app && drifted && generation > drifted.generation && replicas === 1 ? app : undefined;
    },
    start,
    timeoutMs,
  );
  reverted.catch(() => undefined);
  await forEachLimit(apps.length, 8, async (j) => {
    const i = apps[j] as number;
    const at = (performance.now() - start) / 1000;
    const patched = await client.request<Obj>(
      `${deploymentsPath.replace('/deployments', `/namespaces/${destinationNamespace(i)}/deployments`)}/web`,
      {
        method: 'PATCH',
        query: { fieldManager: 'bench-drift' },
        contentType: 'application/merge-patch+json',
        body: { spec: { replicas: 3 } },
      },
    );
    driftedAt.set(appName(i), { at, generation: (patched.metadata as { generation?: number }).generation ?? 0 });
  });
  const seen = await reverted;
  return [...seen.entries()].map(([app, t]) => Number((t - (driftedAt.get(app)?.at ?? 0)).toFixed(3)));
}

/** svc_selfheal_total{result="reverted"} from a `scrapeMetrics` reading. */
function selfHealReverts(metrics: Record<string, number>): number {
  return metrics['svc_selfheal_total{result="reverted"}'] ?? 0;
}
