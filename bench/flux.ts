/**
 * Flux's side of converge: kustomize-controller (./lib/flux-build.ts) as a local process on a fresh plane of its
 * own, N Kustomizations over the same fixture objects into the same namespaces, timed like svc's side (clock
 * started before the first object is created, stopped when the last Kustomization is Ready at the artifact's
 * revision), with the controller's peak RSS and CPU seconds sampled from /proc.
 *
 * The source is an ExternalArtifact whose status points at a tar.gz on a loopback server the benchmark runs
 * (./lib/artifact-server.ts): source-controller does not build here. So Flux's side leaves out a git clone, while
 * svc's side includes its git fetch.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { connect, type AnyObject as Obj } from '../src/kube/index.ts';
import { apiserverRequestCounts, freePort, kubectl, waitUntil } from '../test/harness/index.ts';
import { makeTempDir, removeTempDir, startProcess } from '../test/harness/process.ts';
import { type PublishedArtifact, startArtifactServer } from './lib/artifact-server.ts';
import { APPS_NAMESPACE, appName, destinationNamespace } from './lib/fixture.ts';
import { ensureFluxTools, FLUX_KUSTOMIZE_CONTROLLER_VERSION } from './lib/flux-build.ts';
import { startBenchPlane } from './lib/plane.ts';
import { forEachLimit } from './lib/pool.ts';
import { childPids, cpuByCommand, cpuDelta, sampleProcess } from './lib/proc.ts';
import { summarize } from './lib/stats.ts';
import { waitForAll } from './lib/wait.ts';

/** Parameters of Flux's side. */
export interface FluxParams {
  n: number;
  /** kustomize-controller `--concurrent` (its benchmark's tuning: 20). */
  concurrent: number;
  /** Kustomization `spec.wait` (its benchmark's tuning: true; Ready then means every object healthy). */
  wait: boolean;
  createConcurrency: number;
  timeoutMs: number;
}

/** Namespace kustomize-controller runs "in" (RUNTIME_NAMESPACE). */
const RUNTIME_NAMESPACE = 'flux-system';
const ARTIFACT_NAME = 'bench-fixture';
/** The artifact of the Kustomizations a push does not touch (push among more). */
const QUIET_ARTIFACT_NAME = 'bench-quiet';
const KUSTOMIZATION_INTERVAL = '60m';

/**
 * Controller flags besides the addresses: `--concurrent` as given; the client's QPS/burst raised to the plane's
 * own (1000/2000; defaults 50/300) so a client-side rate limit is not what is measured, as svc's client has none;
 * `--requeue-dependency=5s` from Flux's vertical-scaling guide; `--concurrent-ssa` left at its default (4).
 */
export function fluxFlags(params: Pick<FluxParams, 'concurrent'>): string[] {
  return [
    `--concurrent=${params.concurrent}`,
    '--kube-api-qps=1000',
    '--kube-api-burst=2000',
    '--requeue-dependency=5s',
    '--feature-gates=ExternalArtifact=true',
    '--enable-leader-election=false',
    '--watch-all-namespaces=true',
    // Closest to svc's `warn`: Flux has debug, info and error.
    '--log-level=error',
  ];
}

/** The i-th Kustomization: the fixture from the shared ExternalArtifact into namespace `bench-<i>`, pruned. */
export function kustomization(i: number, wait: boolean, artifact = ARTIFACT_NAME): Obj {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: appName(i), namespace: APPS_NAMESPACE },
    spec: {
      interval: KUSTOMIZATION_INTERVAL,
      sourceRef: { kind: 'ExternalArtifact', name: artifact },
      path: './',
      prune: true,
      wait,
      timeout: '10m',
      targetNamespace: destinationNamespace(i),
    },
  };
}

/** Key of a Kustomization Ready at `revision` (Flux's "applied and, with wait, healthy"), else undefined. */
export function kustomizationReadyKey(revision: string) {
  return (obj: Obj): string | undefined => {
    const status = (obj['status'] ?? {}) as {
      lastAppliedRevision?: string;
      observedGeneration?: number;
      conditions?: { type: string; status: string }[];
    };
    const ready = status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    const current = (status.observedGeneration ?? 0) >= Number(obj.metadata.generation ?? 1);
    return ready && current && status.lastAppliedRevision === revision ? obj.metadata.name : undefined;
  };
}

const kustomizationsPath = `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${APPS_NAMESPACE}/kustomizations`;
const artifactPath = (name: string) =>
  `/apis/source.toolkit.fluxcd.io/v1/namespaces/${APPS_NAMESPACE}/externalartifacts/${name}`;

/** A running Flux side: a fresh plane with Flux's CRDs, the artifact server and kustomize-controller. */
interface FluxSide {
  client: ReturnType<typeof connect>['client'];
  plane: Awaited<ReturnType<typeof startBenchPlane>>;
  /** The controller's own pid (not its process guard's), for /proc sampling. */
  pid: number;
  /** Packs the fixture with `marker` and serves it (not yet announced). */
  pack(marker: string): PublishedArtifact;
  /** Points ExternalArtifact `name`'s status at `artifact` (what source-controller does after a fetch). */
  announce(artifact: PublishedArtifact, name?: string): Promise<void>;
  /**
   * Creates namespace `bench-<i>` and Kustomization i for i in [0, n), `concurrency` at a time, on the artifact
   * `artifactOf(i)` names (default the fixture's); answers each moment.
   */
  create(
    n: number,
    wait: boolean,
    concurrency: number,
    start: number,
    artifactOf?: (i: number) => string,
  ): Promise<number[]>;
  artifactRequests(): number;
  logTail(lines: number): string;
  stop(): Promise<void>;
}

/** Starts Flux's side: plane, CRDs, namespaces, the ExternalArtifacts `names` (no artifact yet) and the controller. */
async function startFlux(
  concurrent: number,
  log: (line: string) => void,
  names: readonly string[] = [ARTIFACT_NAME],
): Promise<FluxSide> {
  const tools = ensureFluxTools(log);
  const plane = await startBenchPlane('bench-flux');
  const artifacts = await startArtifactServer();
  const dir = makeTempDir('bench-flux');
  const { client, objects } = connect({ kubeconfigPath: plane.kubeconfigPath });
  const stops: (() => Promise<void> | void)[] = [
    () => plane.stop(),
    () => removeTempDir(dir),
    () => artifacts.stop(),
    () => client.dropConnections(),
  ];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    for (const file of tools.crdFiles) {
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        const crd = doc.toJS() as Obj | null;
        if (crd) await objects.apply(crd);
      }
    }
    await kubectl(plane.kubeconfigPath, ['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
    for (const name of [APPS_NAMESPACE, RUNTIME_NAMESPACE]) {
      await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    for (const name of names) {
      await objects.apply({
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'ExternalArtifact',
        metadata: { name, namespace: APPS_NAMESPACE },
        spec: {},
      });
    }
    const [metrics, health] = await Promise.all([freePort(), freePort()]);
    const proc = startProcess(
      'flux-kustomize-controller',
      tools.binary,
      [...fluxFlags({ concurrent }), `--metrics-addr=127.0.0.1:${metrics}`, `--health-addr=127.0.0.1:${health}`],
      {
        logDir: dir,
        env: { ...process.env, KUBECONFIG: plane.kubeconfigPath, RUNTIME_NAMESPACE, TMPDIR: dir },
      },
    );
    stops.push(() => proc.stop());
    await waitUntil(async () => (await fetch(`http://127.0.0.1:${health}/readyz`)).status === 200, {
      what: 'kustomize-controller /readyz',
      process: proc,
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const pid = childPids(proc.pid).find((child) => {
      try {
        return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('kustomize-controller');
      } catch {
        return false;
      }
    });
    if (pid === undefined) throw new Error('could not find kustomize-controller under its guard');
    return {
      client,
      plane,
      pid,
      pack: (marker) => artifacts.publish(marker),
      async announce(artifact, name = ARTIFACT_NAME) {
        const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        await client.request(`${artifactPath(name)}/status`, {
          method: 'PATCH',
          contentType: 'application/merge-patch+json',
          body: {
            status: {
              artifact: { ...artifact, lastUpdateTime: now },
              conditions: [
                {
                  type: 'Ready',
                  status: 'True',
                  reason: 'Succeeded',
                  message: 'bench artifact',
                  lastTransitionTime: now,
                },
              ],
            },
          },
        });
      },
      async create(n, wait, concurrency, start, artifactOf = () => ARTIFACT_NAME) {
        const createdAt: number[] = [];
        // Flux applies into existing namespaces: a user creates each one beside its Kustomization, so does this
        // loop (inside the clock, as svc's operator creates its namespaces inside it).
        await forEachLimit(n, concurrency, async (i) => {
          await client.request('/api/v1/namespaces', {
            method: 'POST',
            body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: destinationNamespace(i) } },
          });
          await client.request(kustomizationsPath, { method: 'POST', body: kustomization(i, wait, artifactOf(i)) });
          createdAt.push(Number(((performance.now() - start) / 1000).toFixed(3)));
        });
        return createdAt;
      },
      artifactRequests: () => artifacts.requests(),
      logTail: (lines) => proc.logTail(lines),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Runs Flux's side of converge on a fresh plane and answers its figures (the `flux` part of converge-<n>.json). */
export async function runFlux(params: FluxParams, log: (line: string) => void) {
  const flux = await startFlux(params.concurrent, log);
  const { client, plane } = flux;
  try {
    const artifact = flux.pack('v1');
    await flux.announce(artifact);
    const sampler = sampleProcess(flux.pid);
    const planeBefore = cpuByCommand(plane.dir);
    const requestsBefore = await apiserverRequestCounts(client);
    const idle = sampler.last();
    const start = performance.now();
    const ready = waitForAll(
      client,
      kustomizationsPath,
      params.n,
      kustomizationReadyKey(artifact.revision),
      start,
      params.timeoutMs,
      (count) => {
        if (count % Math.max(1, Math.floor(params.n / 10)) === 0) log(`  ${count}/${params.n} Ready`);
      },
    );
    ready.catch(() => undefined);
    const createdAt = await flux.create(params.n, params.wait, params.createConcurrency, start);
    const allCreatedSeconds = Number(((performance.now() - start) / 1000).toFixed(3));
    const at = await ready;
    const planeCpuSeconds = cpuDelta(planeBefore, cpuByCommand(plane.dir));
    const apiserverRequests = cpuDelta(requestsBefore, await apiserverRequestCounts(client));
    const samples = sampler.stop();
    const final = samples.at(-1);
    const readySeconds = [...at.values()];
    if (at.size < params.n) log(`  flux: ${at.size}/${params.n} Ready; log tail:\n${flux.logTail(20)}`);
    return {
      controller: `fluxcd/kustomize-controller ${FLUX_KUSTOMIZE_CONTROLLER_VERSION}`,
      flags: fluxFlags(params),
      kustomization: { interval: KUSTOMIZATION_INTERVAL, wait: params.wait, prune: true, timeout: '10m' },
      gomaxprocs: 'Go default (all cores)',
      completed: at.size,
      totalSeconds: at.size === params.n ? Math.max(...readySeconds) : null,
      planeCpuSeconds,
      apiserverRequests,
      artifactRequests: flux.artifactRequests(),
      allCreatedSeconds,
      ready: summarize(readySeconds),
      controllerProcess: {
        peakRssMiB: final?.hwmMiB,
        idleRssMiB: idle?.rssMiB,
        cpuSeconds: final && idle ? Number((final.cpuSeconds - idle.cpuSeconds).toFixed(2)) : undefined,
      },
      samples: { createdSeconds: createdAt, readySeconds, controller: samples },
    };
  } finally {
    await flux.stop();
  }
}

/** Parameters of Flux's side of push. */
export interface FluxPushParams {
  /** Kustomizations on the pushed artifact. */
  apps: number;
  /** Kustomizations in all: the others on a second artifact nobody pushes to. */
  among: number;
  rounds: number;
  concurrent: number;
  timeoutMs: number;
}

/** Key of a Kustomization whose last applied revision is `revision` (whatever its readiness), else undefined. */
function kustomizationAppliedKey(revision: string) {
  return (obj: Obj): string | undefined =>
    (obj['status'] as { lastAppliedRevision?: string } | undefined)?.lastAppliedRevision === revision
      ? obj.metadata.name
      : undefined;
}

/**
 * Flux's side of push: `apps` Kustomizations (wait: true) on the shared ExternalArtifact, converged first; then per
 * round what Flux's notification-controller Receiver and source-controller would do for a push: a new artifact is
 * published (status of the ExternalArtifact) and every Kustomization of it is annotated
 * `reconcile.fluxcd.io/requestedAt` (16 PATCHes at a time, as svc's receiver writes). Timed per Kustomization from
 * the publication until its lastAppliedRevision is the new revision, and until Ready at it.
 */
export async function runFluxPush(params: FluxPushParams, log: (line: string) => void) {
  const quiet = params.among > params.apps;
  const flux = await startFlux(params.concurrent, log, quiet ? [ARTIFACT_NAME, QUIET_ARTIFACT_NAME] : [ARTIFACT_NAME]);
  const { client } = flux;
  try {
    // Both artifacts hold the same files, so one revision: every Kustomization is Ready at it.
    const first = flux.pack('v1');
    await flux.announce(first);
    if (quiet) await flux.announce(first, QUIET_ARTIFACT_NAME);
    const setupStart = performance.now();
    const settled = waitForAll(
      client,
      kustomizationsPath,
      params.among,
      kustomizationReadyKey(first.revision),
      setupStart,
      params.timeoutMs,
    );
    settled.catch(() => undefined);
    await flux.create(params.among, true, 8, setupStart, (i) =>
      i < params.apps ? ARTIFACT_NAME : QUIET_ARTIFACT_NAME,
    );
    const setup = await settled;
    if (setup.size < params.among)
      throw new Error(`flux: only ${setup.size}/${params.among} Kustomizations Ready before the timeout`);
    log(`  flux: all Ready after ${Math.max(...setup.values())} s`);
    const sampler = sampleProcess(flux.pid);
    const idle = sampler.last();
    const rounds = [];
    for (let round = 1; round <= params.rounds; round++) {
      // Packed before the clock, as svc's side commits before it.
      const artifact = flux.pack(`v${round + 1}`);
      const { revision } = artifact;
      const start = performance.now();
      const applied = waitForAll(
        client,
        kustomizationsPath,
        params.apps,
        kustomizationAppliedKey(revision),
        start,
        params.timeoutMs,
      );
      const ready = waitForAll(
        client,
        kustomizationsPath,
        params.apps,
        kustomizationReadyKey(revision),
        start,
        params.timeoutMs,
      );
      applied.catch(() => undefined);
      ready.catch(() => undefined);
      await flux.announce(artifact);
      const requestedAt = new Date().toISOString();
      await forEachLimit(params.apps, 16, async (i) => {
        await client.request(`${kustomizationsPath}/${appName(i)}`, {
          method: 'PATCH',
          contentType: 'application/merge-patch+json',
          body: { metadata: { annotations: { 'reconcile.fluxcd.io/requestedAt': requestedAt } } },
        });
      });
      const requestedSeconds = Number(((performance.now() - start) / 1000).toFixed(3));
      const appliedSeconds = [...(await applied).values()];
      const readySeconds = [...(await ready).values()];
      const summary = summarize(appliedSeconds);
      log(
        `  flux round ${round}: requested in ${requestedSeconds} s; applied p50 ${summary.p50} s, p95 ${summary.p95} s, max ${summary.max} s`,
      );
      rounds.push({
        round,
        revision,
        requestedSeconds,
        revisionApplied: summary,
        ready: summarize(readySeconds),
        samples: { revisionAppliedSeconds: appliedSeconds, readySeconds },
      });
    }
    const samples = sampler.stop();
    const final = samples.at(-1);
    return {
      controller: `fluxcd/kustomize-controller ${FLUX_KUSTOMIZE_CONTROLLER_VERSION}`,
      flags: fluxFlags(params),
      kustomization: { interval: KUSTOMIZATION_INTERVAL, wait: true, prune: true, timeout: '10m' },
      setupReadySeconds: Math.max(...setup.values()),
      revisionApplied: summarize(rounds.flatMap((r) => r.samples.revisionAppliedSeconds)),
      ready: summarize(rounds.flatMap((r) => r.samples.readySeconds)),
      controllerProcess: {
        peakRssMiB: final?.hwmMiB,
        cpuSeconds: final && idle ? Number((final.cpuSeconds - idle.cpuSeconds).toFixed(2)) : undefined,
      },
      rounds,
    };
  } finally {
    await flux.stop();
  }
}
