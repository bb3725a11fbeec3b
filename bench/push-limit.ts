/**
 * The limit of push (issue 29 item 2): the same Deployments svc's push rounds roll, changed by a bare loop instead.
 * On a fresh plane, the `apps` Apps' objects are applied once (./limit.ts); then per round the objects at the round's
 * marker are server-side-applied by a bare loop with the operator's concurrency (no git, no receiver, no render, no
 * status), timed per Deployment until a watch sees the new pod template (applied) and until it is rolled out
 * (ready). svc's "revision applied" reads against the first, its "Synced and Healthy" against the second.
 */
import { connect, type AnyObject as Obj } from '../src/kube/index.ts';
import { renderedObjects } from './lib/fixture.ts';
import { startBenchPlane } from './lib/plane.ts';
import { forEachLimit } from './lib/pool.ts';
import { summarize } from './lib/stats.ts';
import { deploymentHealthy, waitForAll } from './lib/wait.ts';
import { runLimit, svcApplier } from './limit.ts';

const MARKER = 'bench.svc.space/marker';

/** The key of a Deployment whose pod template carries `marker` (and, with `ready`, is rolled out), else undefined. */
function atMarker(marker: string, ready: boolean) {
  return (obj: Obj): string | undefined => {
    const template = (obj['spec'] as { template?: { metadata?: { annotations?: Record<string, string> } } })?.template;
    if (template?.metadata?.annotations?.[MARKER] !== marker) return undefined;
    if (ready && !deploymentHealthy(obj)) return undefined;
    return `${obj.metadata.namespace}/${obj.metadata.name}`;
  };
}

/** Runs `rounds` bare push rounds over `apps` Deployments on a fresh plane; per round, applied and ready figures. */
export async function runPushLimit(params: { apps: number; rounds: number; concurrency: number; timeoutMs: number }) {
  const plane = await startBenchPlane('bench-push-limit');
  try {
    const applier = svcApplier(plane.kubeconfigPath);
    const setup = await runLimit(plane, applier, {
      n: params.apps,
      concurrency: params.concurrency,
      timeoutMs: params.timeoutMs,
    });
    const { client } = connect({ kubeconfigPath: plane.kubeconfigPath });
    const rounds = [];
    for (let round = 1; round <= params.rounds; round++) {
      // The same markers as svc's rounds (push.ts commits fixtureFiles(`v${round + 1}`)).
      const marker = `v${round + 1}`;
      const start = performance.now();
      const path = '/apis/apps/v1/deployments';
      const applied = waitForAll(client, path, params.apps, atMarker(marker, false), start, params.timeoutMs);
      const ready = waitForAll(client, path, params.apps, atMarker(marker, true), start, params.timeoutMs);
      applied.catch(() => undefined);
      ready.catch(() => undefined);
      await forEachLimit(params.apps, params.concurrency, async (i) => {
        for (const obj of renderedObjects(i, marker)) await applier.apply(obj);
      });
      const appliedSeconds = [...(await applied).values()];
      const readySeconds = [...(await ready).values()];
      rounds.push({
        round,
        applied: summarize(appliedSeconds),
        ready: summarize(readySeconds),
        samples: { appliedSeconds, readySeconds },
      });
    }
    await client.dropConnections();
    return {
      client: applier.name,
      setupSeconds: setup.totalSeconds,
      applied: summarize(rounds.flatMap((r) => r.samples.appliedSeconds)),
      ready: summarize(rounds.flatMap((r) => r.samples.readySeconds)),
      rounds,
    };
  } finally {
    await plane.stop();
  }
}
