/**
 * soak (issue 29 item 5): N Apps (one ConfigMap each, spread over several repositories) kept by one operator for a
 * long run under a steady churn, one action per tick in turn: a push to one repository (commit + push event to the
 * receiver), spec edits (a batch of Apps switch between the fixture's two directories), deletions (a batch of Apps
 * deleted and created again); every `restartMinutes` an operator restart (SIGTERM, a fresh process) takes a tick.
 * Recorded over time: each operator process's RSS and heap (its /metrics), with the slope per hour of each
 * process's curve after its first minute and of all samples across the run; the apiserver's requests per minute; and at the end every App's state (all Synced and Healthy at the head of
 * its repository and directory) and the orphans (ConfigMaps labelled for an App that no longer exists, or that
 * an App no longer deploys).
 */
import { connect, type KubeClient } from '../src/kube/index.ts';
import { apiserverRequestCounts, type GitRepo, startGitServer, waitUntil } from '../test/harness/index.ts';
import { APPS_NAMESPACE, appName, appResource, destinationNamespace } from './lib/fixture.ts';
import { startBenchPlane } from './lib/plane.ts';
import { forEachLimit } from './lib/pool.ts';
import { writeResult } from './lib/results.ts';
import { type OperatorProcess, scrapeMetrics, startOperatorProcess } from './lib/svc-process.ts';
import { appReadyKey, appsPath, waitForAll } from './lib/wait.ts';

/** Parameters of one soak run. */
export interface SoakParams {
  apps: number;
  minutes: number;
  /** Seconds between churn actions. */
  tickSeconds: number;
  /**
   * Minutes between operator restarts (a restart takes the place of that tick's action). Long enough for each
   * process to show its own memory curve: a run restarting every few ticks measures only young processes.
   */
  restartMinutes: number;
  /** Apps per spec-edit or deletion batch. */
  batch: number;
  repositories: number;
  timeoutMs: number;
}

/** Files of repository `r` at `round`: two directories (`a`, `b`) of one ConfigMap each, their data marked. */
function soakFiles(round: number): Record<string, string> {
  const dir = (d: string) => ({
    [`${d}/kustomization.yaml`]:
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cm.yaml\n',
    [`${d}/cm.yaml`]: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-${d}\ndata:\n  round: "${round}"\n`,
  });
  return { ...dir('a'), ...dir('b') };
}

/** What the run believes each App should be: its repository and directory (absent when deleted). */
interface Desired {
  repo: number;
  dir: 'a' | 'b';
}

/** One sample of the operator: seconds since the run started, the process generation, RSS and heap in MiB. */
interface MemorySample {
  t: number;
  process: number;
  rssMiB: number;
  heapUsedMiB: number;
}

/** Least-squares slope of `y` over `x` (per unit of x); undefined with fewer than two points. */
function slope(points: Array<[number, number]>): number | undefined {
  if (points.length < 2) return undefined;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  return sxx === 0 ? undefined : sxy / sxx;
}

function appBody(i: number, repos: GitRepo[], want: Desired) {
  const body = appResource(i, (repos[want.repo] as GitRepo).url, { webhook: true });
  body.spec.source.git.path = want.dir;
  return body;
}

/** The churn: what each action does to the plane and to `desired`. */
function churn(client: KubeClient, repos: GitRepo[], desired: Map<number, Desired>, params: SoakParams) {
  let round = 0;
  let cursor = 0;
  const batch = () => {
    const picked: number[] = [];
    for (let k = 0; k < params.batch; k++) picked.push((cursor++ * 7919) % params.apps);
    return picked;
  };
  return {
    async push(operator: OperatorProcess): Promise<void> {
      round++;
      const r = round % repos.length;
      const repo = repos[r] as GitRepo;
      const sha = await repo.commit(soakFiles(round), `soak round ${round}`);
      await fetch(`${operator.webhookURL}/webhook/gitA`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
        body: JSON.stringify({ ref: 'refs/heads/main', after: sha, repository: { clone_url: repo.url } }),
      }).catch(() => undefined); // A restarting operator misses it; its periodic sync still picks the head up.
    },
    async edit(): Promise<void> {
      for (const i of batch()) {
        const want = desired.get(i) as Desired;
        want.dir = want.dir === 'a' ? 'b' : 'a';
        await client.request(`${appsPath}/${appName(i)}`, {
          method: 'PATCH',
          contentType: 'application/merge-patch+json',
          body: { spec: { source: { git: { path: want.dir } } } },
        });
      }
    },
    async recreate(): Promise<void> {
      const picked = batch();
      for (const i of picked) await client.request(`${appsPath}/${appName(i)}`, { method: 'DELETE' });
      for (const i of picked) {
        // Deleted once a GET fails (the operator's finalizer has finished pruning).
        await waitUntil(
          () =>
            client.request(`${appsPath}/${appName(i)}`).then(
              () => false,
              () => true,
            ),
          { what: `${appName(i)} deleted`, timeoutMs: params.timeoutMs, intervalMs: 250 },
        );
        await client.request(appsPath, { method: 'POST', body: appBody(i, repos, desired.get(i) as Desired) });
      }
    },
  };
}

/** Runs the soak and writes bench/results/soak-<apps>.json. */
export async function soak(params: SoakParams, log: (line: string) => void): Promise<string> {
  const plane = await startBenchPlane('bench-soak');
  const git = await startGitServer();
  let operator: OperatorProcess | undefined;
  try {
    const repos: GitRepo[] = [];
    for (let r = 0; r < params.repositories; r++) repos.push(await git.createRepo(`soak-${r}`, soakFiles(0)));
    const { client, objects } = connect({ kubeconfigPath: plane.kubeconfigPath });
    await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: APPS_NAMESPACE } });
    const start = performance.now();
    const seconds = () => Number(((performance.now() - start) / 1000).toFixed(1));
    const startOperator = () => startOperatorProcess({ kubeconfigPath: plane.kubeconfigPath });
    operator = await startOperator();
    const desired = new Map<number, Desired>();
    for (let i = 0; i < params.apps; i++) desired.set(i, { repo: i % params.repositories, dir: 'a' });
    await forEachLimit(params.apps, 8, async (i) => {
      await client.request(appsPath, { method: 'POST', body: appBody(i, repos, desired.get(i) as Desired) });
    });
    const first = await waitForAll(client, appsPath, params.apps, appReadyKey(), start, params.timeoutMs);
    log(`  ${first.size}/${params.apps} converged in ${seconds()} s; churn for ${params.minutes} min`);

    const memory: MemorySample[] = [];
    const requestsPerMinute: Array<{ t: number; requests: number }> = [];
    let generation = 0;
    let lastRequests = await apiserverRequestCounts(client);
    const sample = async () => {
      const m = await scrapeMetrics((operator as OperatorProcess).metricsURL);
      const rss = m.process_resident_memory_bytes;
      const heap = m['nodejs_heap_size_used_bytes'];
      if (rss !== undefined && heap !== undefined) {
        memory.push({ t: seconds(), process: generation, rssMiB: rss / 2 ** 20, heapUsedMiB: heap / 2 ** 20 });
      }
    };
    const actions = churn(client, repos, desired, params);
    const counts = { push: 0, edit: 0, recreate: 0, restart: 0 };
    const end = performance.now() + params.minutes * 60_000;
    let nextMinute = performance.now() + 60_000;
    let lastRestart = performance.now();
    for (let tick = 0; performance.now() < end; tick++) {
      const due = performance.now() - lastRestart >= params.restartMinutes * 60_000;
      const cycle = ['push', 'edit', 'recreate', 'push', 'edit'] as const;
      const kind: keyof typeof counts = due ? 'restart' : (cycle[tick % cycle.length] ?? 'push');
      if (kind === 'restart') {
        lastRestart = performance.now();
        await (operator as OperatorProcess).stop();
        operator = await startOperator();
        generation++;
      } else if (kind === 'push') await actions.push(operator as OperatorProcess);
      else await actions[kind]();
      counts[kind]++;
      await sample();
      if (performance.now() >= nextMinute) {
        const now = await apiserverRequestCounts(client);
        const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
        requestsPerMinute.push({ t: seconds(), requests: total(now) - total(lastRequests) });
        lastRequests = now;
        nextMinute += 60_000;
      }
      await new Promise((resolve) => setTimeout(resolve, params.tickSeconds * 1000));
    }
    log(`  churn done (${JSON.stringify(counts)}); waiting for every App at its head`);
    const final = await finalState(client, repos, desired, params, start);
    const slopes = [...new Set(memory.map((m) => m.process))].map((p) => {
      const own = memory.filter((m) => m.process === p);
      const warm = own.filter((m) => m.t - (own[0]?.t ?? 0) >= 60);
      const perHour = (pick: (m: MemorySample) => number) => {
        const s = slope(warm.map((m) => [m.t / 3600, pick(m)]));
        return s === undefined ? undefined : Number(s.toFixed(1));
      };
      return {
        process: p,
        samples: own.length,
        rssMiBPerHour: perHour((m) => m.rssMiB),
        heapMiBPerHour: perHour((m) => m.heapUsedMiB),
      };
    });
    // Across the whole run, every process's samples together: whether memory climbs from one process to the next.
    const acrossRun = (pick: (m: MemorySample) => number) => {
      const s = slope(memory.map((m) => [m.t / 3600, pick(m)]));
      return s === undefined ? undefined : Number(s.toFixed(1));
    };
    const slopeAcrossRun = {
      rssMiBPerHour: acrossRun((m) => m.rssMiB),
      heapMiBPerHour: acrossRun((m) => m.heapUsedMiB),
    };
    return await writeResult(`soak-${params.apps}`, {
      params,
      counts,
      final,
      slopes,
      slopeAcrossRun,
      requestsPerMinute,
      memory,
    });
  } finally {
    await operator?.stop().catch(() => undefined);
    await git.stop();
    await plane.stop();
  }
}

/** Waits for every App Synced and Healthy at its repository's head, then counts orphaned ConfigMaps. */
async function finalState(
  client: KubeClient,
  repos: GitRepo[],
  desired: Map<number, Desired>,
  params: SoakParams,
  start: number,
) {
  const heads = await Promise.all(repos.map((r) => r.head()));
  const atHead = appReadyKey();
  const ready = await waitForAll(
    client,
    appsPath,
    params.apps,
    (obj) => {
      const i = Number(obj.metadata.name.slice('app-'.length));
      const want = desired.get(i) as Desired;
      const status = (obj['status'] ?? {}) as { revision?: string };
      const spec = obj['spec'] as { source?: { git?: { path?: string } } };
      return status.revision === heads[want.repo] && spec.source?.git?.path === want.dir ? atHead(obj) : undefined;
    },
    performance.now(),
    params.timeoutMs,
  );
  const orphans: string[] = [];
  const { items } = await client.request<{ items: Array<{ metadata: { name: string; namespace: string } }> }>(
    '/api/v1/configmaps?labelSelector=cd.svc.space/app',
  );
  for (const cm of items) {
    const i = Number(cm.metadata.namespace.slice('bench-'.length));
    const want = desired.get(i);
    if (cm.metadata.namespace !== destinationNamespace(i) || !want || cm.metadata.name !== `web-${want.dir}`) {
      orphans.push(`${cm.metadata.namespace}/${cm.metadata.name}`);
    }
  }
  return {
    atHeadSyncedHealthy: ready.size,
    of: params.apps,
    secondsSinceStart: Number(((performance.now() - start) / 1000).toFixed(1)),
    orphans,
  };
}
