/**
 * push: `apps` Apps (100) on one repository with push events enabled, optionally among `among` Apps in all (the
 * others on a second repository, converged first too). Per round: commit (a pod-template change, so a real rollout
 * follows), POST the GitHub-style push event to the operator's receiver (/webhook/gitA), and time until each pushed
 * App reports the new revision as applied (p50, p95, max), and until it is Synced and Healthy at it. Flux's side
 * (./flux.ts runFluxPush) does the same with Kustomizations.
 */
import { connect } from '../src/kube/index.ts';
import { apiserverRequestCounts, startGitServer } from '../test/harness/index.ts';
import { runFluxPush } from './flux.ts';
import { APPS_NAMESPACE, appResource, fixtureFiles } from './lib/fixture.ts';
import { BENCH_THROUGHPUT, startBenchPlane } from './lib/plane.ts';
import { forEachLimit } from './lib/pool.ts';
import { cpuByCommand, cpuDelta, sampleProcess } from './lib/proc.ts';
import { writeResult } from './lib/results.ts';
import { summarize } from './lib/stats.ts';
import { keepProfiles, scrapeMetrics, stageTimes, startOperatorProcess } from './lib/svc-process.ts';
import { appReadyKey, appRevisionKey, appsPath, waitForAll } from './lib/wait.ts';
import { runPushLimit } from './push-limit.ts';

/** Parameters of the push benchmark. */
export interface PushParams {
  /** Apps on the pushed repository. */
  apps: number;
  /** Apps in all (default `apps`): the others deploy from a second repository nobody pushes to. */
  among?: number;
  rounds: number;
  timeoutMs: number;
  cpuProfile: boolean;
  /** Flux's side beside svc's (./flux.ts runFluxPush), with kustomize-controller's `--concurrent`. */
  flux?: { concurrent: number };
  /** Skip the bare push limit (./push-limit.ts) that runs beside svc's rounds by default. */
  noLimit?: boolean;
}

/**
 * Runs the push benchmark (svc's side, then Flux's unless left out) and writes bench/results/push.json, or
 * push-<apps>-of-<among>.json when the pushed Apps are among more.
 */
export async function push(params: PushParams, log: (line: string) => void): Promise<string> {
  const among = Math.max(params.among ?? params.apps, params.apps);
  let limit: Awaited<ReturnType<typeof runPushLimit>> | undefined;
  if (!params.noLimit) {
    log(`push: limit (bare apply loop over the same ${params.apps} Deployments, ${params.rounds} rounds)`);
    limit = await runPushLimit({
      apps: params.apps,
      rounds: params.rounds,
      concurrency: 8,
      timeoutMs: params.timeoutMs,
    });
    log(`  limit: applied p95 ${limit.applied.p95} s, ready p95 ${limit.ready.p95} s`);
  }
  const ours = await pushOurs(params, log);
  let flux: Awaited<ReturnType<typeof runFluxPush>> | undefined;
  if (params.flux) {
    log(
      `push: Flux kustomize-controller (--concurrent=${params.flux.concurrent}), ${params.apps} of ${among} Kustomizations`,
    );
    flux = await runFluxPush({ ...params, among, concurrent: params.flux.concurrent }, log);
  }
  return writeResult(among > params.apps ? `push-${params.apps}-of-${among}` : 'push', {
    ...ours,
    summary: {
      ...ours.summary,
      fluxRevisionApplied: flux?.revisionApplied,
      fluxReady: flux?.ready,
      fluxPeakRssMiB: flux?.controllerProcess.peakRssMiB,
      limitApplied: limit?.applied,
      limitReady: limit?.ready,
    },
    flux,
    limit,
  });
}

/** svc's side: the operator as a child process, its receiver POSTed a GitHub-style push per round. */
async function pushOurs(params: PushParams, log: (line: string) => void) {
  const among = Math.max(params.among ?? params.apps, params.apps);
  const plane = await startBenchPlane('bench-push');
  const git = await startGitServer();
  const { client, objects } = connect({ kubeconfigPath: plane.kubeconfigPath });
  try {
    const repo = await git.createRepo('bench-push', fixtureFiles('v1'));
    const quiet = among > params.apps ? await git.createRepo('bench-quiet', fixtureFiles('v1')) : undefined;
    const operator = await startOperatorProcess({
      kubeconfigPath: plane.kubeconfigPath,
      cpuProfile: params.cpuProfile,
    });
    try {
      await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: APPS_NAMESPACE } });
      const sampler = sampleProcess(operator.pid);
      log(`push: creating ${params.apps} Apps with push events enabled${quiet ? ` among ${among}` : ''}`);
      const setupStart = performance.now();
      const settled = waitForAll(client, appsPath, among, appReadyKey(), setupStart, params.timeoutMs);
      settled.catch(() => undefined);
      // Apps 0…apps-1 are pushed to; the rest deploy from the quiet repository.
      await forEachLimit(among, 8, (i) =>
        client
          .request(appsPath, {
            method: 'POST',
            body: i < params.apps || !quiet ? appResource(i, repo.url, { webhook: true }) : appResource(i, quiet.url),
          })
          .then(() => undefined),
      );
      const setup = await settled;
      if (setup.size < among) throw new Error(`only ${setup.size}/${among} Apps converged before the timeout`);
      log(`  all Synced+Healthy after ${Math.max(...setup.values())} s`);

      const metricsAfterSetup = await scrapeMetrics(operator.metricsURL);
      const planeBefore = cpuByCommand(plane.dir);
      const requestsBefore = await apiserverRequestCounts(client);
      const operatorBefore = sampler.last();
      const rounds = [];
      for (let round = 1; round <= params.rounds; round++) {
        const sha = await repo.commit(fixtureFiles(`v${round + 1}`), `bench push round ${round}`);
        const start = performance.now();
        const applied = waitForAll(client, appsPath, params.apps, appRevisionKey(sha), start, params.timeoutMs);
        const healthy = waitForAll(client, appsPath, params.apps, appReadyKey(sha), start, params.timeoutMs);
        applied.catch(() => undefined);
        healthy.catch(() => undefined);
        const res = await fetch(`${operator.webhookURL}/webhook/gitA`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
          body: JSON.stringify({
            ref: 'refs/heads/main',
            before: '0'.repeat(40),
            after: sha,
            repository: { clone_url: repo.url },
            pusher: { name: 'bench' },
          }),
        });
        const answer = (await res.json()) as { matched?: number };
        const answeredSeconds = Number(((performance.now() - start) / 1000).toFixed(3));
        if (res.status !== 200 || answer.matched !== params.apps) {
          throw new Error(
            `push event answered ${res.status} ${JSON.stringify(answer)}; expected ${params.apps} matches`,
          );
        }
        const appliedSeconds = [...(await applied).values()];
        const healthySeconds = [...(await healthy).values()];
        if (appliedSeconds.length < params.apps)
          log(
            `  round ${round}: only ${appliedSeconds.length}/${params.apps} Apps reported the revision before the timeout`,
          );
        const summary = summarize(appliedSeconds);
        log(
          `  round ${round}: receiver answered in ${answeredSeconds} s; revision applied p50 ${summary.p50} s, p95 ${summary.p95} s, max ${summary.max} s`,
        );
        rounds.push({
          round,
          revision: sha,
          receiverAnsweredSeconds: answeredSeconds,
          revisionApplied: summary,
          syncedHealthy: summarize(healthySeconds),
          samples: { revisionAppliedSeconds: appliedSeconds, syncedHealthySeconds: healthySeconds },
        });
      }
      const planeCpuSeconds = cpuDelta(planeBefore, cpuByCommand(plane.dir));
      const apiserverRequests = cpuDelta(requestsBefore, await apiserverRequestCounts(client));
      const operatorSamples = sampler.stop();
      const operatorAfter = operatorSamples.at(-1);
      const operatorMetrics = await scrapeMetrics(operator.metricsURL);
      const all = rounds.flatMap((r) => r.samples.revisionAppliedSeconds);
      return {
        parameters: { ...params, webhookSecret: false, controlPlane: BENCH_THROUGHPUT },
        summary: {
          apps: params.apps,
          among,
          rounds: params.rounds,
          revisionApplied: summarize(all),
          syncedHealthy: summarize(rounds.flatMap((r) => r.samples.syncedHealthySeconds)),
          operatorPeakRssMiB: operatorSamples.at(-1)?.hwmMiB,
          // Where the operator's time went in the rounds (not the setup): per reconcile step.
          roundStages: stageTimes(operatorMetrics, metricsAfterSetup),
          // CPU seconds over the rounds: the plane's components, and the operator's own.
          roundPlaneCpuSeconds: planeCpuSeconds,
          roundApiserverRequests: apiserverRequests,
          roundOperatorCpuSeconds:
            operatorAfter && operatorBefore
              ? Number((operatorAfter.cpuSeconds - operatorBefore.cpuSeconds).toFixed(2))
              : undefined,
        },
        setupConvergeSeconds: Math.max(...setup.values()),
        rounds,
        operatorSamples,
        operatorMetrics,
      };
    } finally {
      await operator.stop();
      if (operator.profileDir) log(`  profiles: ${(await keepProfiles(operator.profileDir, 'push')).join(', ')}`);
    }
  } finally {
    await client.dropConnections();
    await git.stop();
    await plane.stop();
  }
}
