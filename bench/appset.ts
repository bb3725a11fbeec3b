/**
 * appset (issue 27): one AppSet whose list generator makes N Apps, against the same N Apps created directly. The
 * AppSet's Apps are exactly converge's (bench/converge.ts): App `app-<i>` deploying the shared Kustomize fixture
 * (a Deployment and a Service) into `bench-<i>`, automated sync with prune. On a fresh plane: the clock starts
 * before the AppSet is created and records when the last App exists (all generated) and when the last App is Synced
 * and Healthy (all converged), each App's own moments from watches; the operator's peak RSS and CPU are sampled as
 * converge samples them. The direct side is converge's own run (runOurs, on a fresh plane of its own, no steady-state
 * watch). Writes bench/results/appset-<N>.json.
 */
import { APP_API_VERSION, APPSET_KIND } from '../src/core/app-names.ts';
import { connect } from '../src/kube/index.ts';
import { startGitServer } from '../test/harness/index.ts';
import { runOurs } from './converge.ts';
import { APPS_NAMESPACE, fixtureFiles } from './lib/fixture.ts';
import { BENCH_THROUGHPUT, startBenchPlane } from './lib/plane.ts';
import { cpuByCommand, cpuDelta, sampleProcess } from './lib/proc.ts';
import { writeResult } from './lib/results.ts';
import { summarize } from './lib/stats.ts';
import { scrapeMetrics, startOperatorProcess } from './lib/svc-process.ts';
import { appReadyKey, appsPath, waitForAll } from './lib/wait.ts';

/** Parameters of one appset run. */
export interface AppSetBenchParams {
  n: number;
  timeoutMs: number;
  /** Concurrency of creating the App resources on the direct side (converge's). */
  createConcurrency: number;
  /** Skip the direct side (the AppSet only). */
  noDirect?: boolean;
}

const appSetsPath = `/apis/${APP_API_VERSION}/namespaces/${APPS_NAMESPACE}/appsets`;

/** The AppSet generating converge's N Apps: `app-<i>` into `bench-<i>`, i zero-padded to four digits. */
export function benchAppSet(n: number, repoURL: string) {
  const elements = Array.from({ length: n }, (_, i) => ({ i: String(i).padStart(4, '0') }));
  return {
    apiVersion: APP_API_VERSION,
    kind: APPSET_KIND,
    metadata: { name: 'bench', namespace: APPS_NAMESPACE },
    spec: {
      generators: [{ list: { elements } }],
      template: {
        metadata: { name: 'app-{{ i }}' },
        spec: {
          source: { type: 'Git', git: { repoURL, branch: 'main', path: '.', manifestType: 'Kustomize' } },
          destination: { namespace: 'bench-{{ i }}' },
          syncPolicy: { automated: true, prune: true },
        },
      },
    },
  };
}

/** The AppSet's side: create the AppSet, wait until its N Apps exist and until all are Synced and Healthy. */
async function runAppSet(params: AppSetBenchParams, log: (line: string) => void) {
  const plane = await startBenchPlane('bench-appset');
  const git = await startGitServer();
  try {
    const repo = await git.createRepo('bench-fixture', fixtureFiles());
    const operator = await startOperatorProcess({ kubeconfigPath: plane.kubeconfigPath });
    const { client, objects } = connect({ kubeconfigPath: plane.kubeconfigPath });
    try {
      await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: APPS_NAMESPACE } });
      const sampler = sampleProcess(operator.pid);
      const planeBefore = cpuByCommand(plane.dir);
      const idle = sampler.last();
      const start = performance.now();
      const progress = (what: string) => (count: number) => {
        if (count % Math.max(1, Math.floor(params.n / 10)) === 0) log(`  ${count}/${params.n} ${what}`);
      };
      const generated = waitForAll(
        client,
        appsPath,
        params.n,
        (obj) => obj.metadata.name,
        start,
        params.timeoutMs,
        progress('generated'),
      );
      const ready = waitForAll(client, appsPath, params.n, appReadyKey(), start, params.timeoutMs, progress('ready'));
      generated.catch(() => undefined);
      ready.catch(() => undefined);
      await client.request(appSetsPath, { method: 'POST', body: benchAppSet(params.n, repo.url) });
      const [made, at] = await Promise.all([generated, ready]);
      const planeCpuSeconds = cpuDelta(planeBefore, cpuByCommand(plane.dir));
      const metrics = await scrapeMetrics(operator.metricsURL);
      const final = sampler.last();
      const samples = sampler.stop();
      const appSet = await client.request<{ status?: { errors?: string[] } }>(`${appSetsPath}/bench`);
      const generatedSeconds = [...made.values()];
      const readySeconds = [...at.values()];
      return {
        generated: made.size,
        completed: at.size,
        generatedSeconds: made.size === params.n ? Math.max(...generatedSeconds) : null,
        totalSeconds: at.size === params.n ? Math.max(...readySeconds) : null,
        appSetErrors: appSet.status?.errors ?? [],
        planeCpuSeconds,
        generatedAt: summarize(generatedSeconds),
        ready: summarize(readySeconds),
        operator: {
          peakRssMiB: final?.hwmMiB,
          idleRssMiB: idle?.rssMiB,
          cpuSeconds: final && idle ? Number((final.cpuSeconds - idle.cpuSeconds).toFixed(2)) : undefined,
          childCpuSeconds:
            final && idle ? Number((final.childCpuSeconds - idle.childCpuSeconds).toFixed(2)) : undefined,
          metrics,
        },
        samples: { generatedSeconds, readySeconds, operator: samples },
      };
    } finally {
      await client.dropConnections();
      await operator.stop();
    }
  } finally {
    await git.stop();
    await plane.stop();
  }
}

/** Runs appset at `params.n` (the AppSet, then the same Apps created directly) and writes appset-<n>.json. */
export async function appSetBench(params: AppSetBenchParams, log: (line: string) => void): Promise<string> {
  log(`appset n=${params.n}: one AppSet generating ${params.n} Apps`);
  const viaAppSet = await runAppSet(params, log);
  log(
    `  appset: all generated in ${viaAppSet.generatedSeconds} s, all Synced+Healthy in ${viaAppSet.totalSeconds} s, operator peak RSS ${viaAppSet.operator.peakRssMiB} MiB`,
  );
  let direct: Awaited<ReturnType<typeof runOurs>> | undefined;
  if (!params.noDirect) {
    log(`appset n=${params.n}: the same ${params.n} Apps created directly`);
    direct = await runOurs(
      {
        n: params.n,
        source: 'git',
        concurrency: 8,
        createConcurrency: params.createConcurrency,
        timeoutMs: params.timeoutMs,
        cpuProfile: false,
        limitOnly: false,
        noLimit: true,
        steadySeconds: 0,
      },
      log,
    );
    log(`  direct: all Synced+Healthy in ${direct.totalSeconds} s (all created at ${direct.allCreatedSeconds} s)`);
  }
  const ratio = (a: number | null | undefined, b: number | null | undefined) =>
    a && b ? Number((a / b).toFixed(2)) : undefined;
  return writeResult(`appset-${params.n}`, {
    parameters: { ...params, controlPlane: BENCH_THROUGHPUT },
    summary: {
      n: params.n,
      appSetGeneratedSeconds: viaAppSet.generatedSeconds,
      appSetConvergedSeconds: viaAppSet.totalSeconds,
      appSetCompleted: viaAppSet.completed,
      appSetErrors: viaAppSet.appSetErrors.length,
      directCreatedSeconds: direct?.allCreatedSeconds,
      directConvergedSeconds: direct?.totalSeconds,
      directCompleted: direct?.completed,
      appSetOverDirect: ratio(viaAppSet.totalSeconds, direct?.totalSeconds),
      appSetOperatorPeakRssMiB: viaAppSet.operator.peakRssMiB,
      appSetOperatorCpuSeconds: viaAppSet.operator.cpuSeconds,
      directOperatorPeakRssMiB: direct?.operator.peakRssMiB,
      directOperatorCpuSeconds: direct?.operator.cpuSeconds,
    },
    appSet: viaAppSet,
    direct,
  });
}
