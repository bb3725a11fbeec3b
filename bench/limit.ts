/**
 * The limit of converge: the same objects the operator would apply for N Apps, server-side-applied by a bare loop
 * (no git, no render, no status) with the operator's concurrency, then waited on until every Deployment is
 * healthy. Its time is the floor the control plane allows; converge reads as ours ÷ this.
 */

import { createdForLabels } from '../src/engine/labels.ts';
import { connect, ensureNamespace, type AnyObject as Obj } from '../src/kube/index.ts';
import { apiserverRequestCounts, type ControlPlane } from '../test/harness/index.ts';
import { APPS_NAMESPACE, appName, destinationNamespace, renderedObjects } from './lib/fixture.ts';
import { forEachLimit } from './lib/pool.ts';
import { cpuByCommand, cpuDelta } from './lib/proc.ts';
import { summarize } from './lib/stats.ts';
import { healthyDeploymentKey, waitForAll } from './lib/wait.ts';

/** What the loop does per App, the way the operator does it: make sure the namespace exists, then apply. */
export interface Applier {
  /** Name of the client, recorded in the result. */
  name: string;
  ensureNamespace(name: string, owner: { namespace: string; name: string }): Promise<void>;
  apply(obj: Obj): Promise<void>;
}

/**
 * svc's own client as an Applier: the operator's KubeClient and ObjectClient (discovery, server-side apply as
 * field manager svc-operator, forced) and its ensureNamespace stage, so only git, render and status are left out.
 */
export function svcApplier(kubeconfigPath: string): Applier {
  const { objects } = connect({ kubeconfigPath });
  return {
    name: 'svc src/kube ObjectClient.apply + operator ensureNamespace',
    async ensureNamespace(name, owner) {
      await ensureNamespace(objects, name, createdForLabels(owner));
    },
    async apply(obj) {
      await objects.apply(obj);
    },
  };
}

/** Parameters of one limit run. */
export interface LimitParams {
  n: number;
  concurrency: number;
  timeoutMs: number;
}

/** Runs the bare apply loop on `plane` and measures until every Deployment is healthy. */
export async function runLimit(plane: ControlPlane, applier: Applier, params: LimitParams) {
  const { client } = connect({ kubeconfigPath: plane.kubeconfigPath });
  const appliedAt: number[] = [];
  const planeBefore = cpuByCommand(plane.dir);
  const requestsBefore = await apiserverRequestCounts(client);
  const start = performance.now();
  const healthy = waitForAll(
    client,
    '/apis/apps/v1/deployments',
    params.n,
    healthyDeploymentKey,
    start,
    params.timeoutMs,
  );
  healthy.catch(() => undefined);
  await forEachLimit(params.n, params.concurrency, async (i) => {
    await applier.ensureNamespace(destinationNamespace(i), { namespace: APPS_NAMESPACE, name: appName(i) });
    for (const obj of renderedObjects(i)) await applier.apply(obj);
    appliedAt.push(Number(((performance.now() - start) / 1000).toFixed(3)));
  });
  const allAppliedSeconds = Number(((performance.now() - start) / 1000).toFixed(3));
  const at = await healthy;
  const planeCpuSeconds = cpuDelta(planeBefore, cpuByCommand(plane.dir));
  const apiserverRequests = cpuDelta(requestsBefore, await apiserverRequestCounts(client));
  await client.dropConnections();
  const healthySeconds = [...at.values()];
  return {
    client: applier.name,
    completed: at.size,
    totalSeconds: at.size === params.n ? Math.max(...healthySeconds) : null,
    planeCpuSeconds,
    apiserverRequests,
    allAppliedSeconds,
    healthy: summarize(healthySeconds),
    samples: { appliedSeconds: appliedAt, healthySeconds },
  };
}
