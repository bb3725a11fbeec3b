/**
 * The limit of converge: the same objects the operator would apply for N Apps, server-side-applied by a bare loop
 * (no git, no render, no status) with the operator's concurrency, then waited on until every Deployment is
 * healthy. Its time is the floor the control plane allows; converge reads as ours ÷ this.
 */

import { Agent, type RequestOptions } from 'node:https';
import { type AnyObject, Discovery, KubeClient, ObjectClient } from '../src/kube/index.ts';
import { ensureNamespace } from '../src/operator/stages/apply.ts';
import type { ControlPlane } from '../test/harness/index.ts';
import { APPS_NAMESPACE, appName, destinationNamespace, renderedObjects } from './lib/fixture.ts';
import { BenchKube, type Obj } from './lib/kube.ts';
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
export function svcApplier(kubeconfigPath: string, options: { keepAlive?: boolean } = {}): Applier {
  const client = KubeClient.fromFile(kubeconfigPath);
  if (options.keepAlive) keepAlive(client);
  const objects = new ObjectClient(client, new Discovery(client));
  return {
    name: `svc src/kube ObjectClient.apply + operator ensureNamespace${options.keepAlive ? ', keep-alive agent' : ''}`,
    async ensureNamespace(name, owner) {
      await ensureNamespace(objects, name, owner);
    },
    async apply(obj) {
      await objects.apply(obj as AnyObject);
    },
  };
}

/**
 * An experiment, not svc's behaviour: KubeClient takes its agent from @kubernetes/client-node's
 * `applyToHTTPSOptions`, an https.Agent without keep-alive, so most requests open a new TLS connection. This swaps
 * in one keep-alive agent with the same TLS material, to measure what that fix would buy.
 */
function keepAlive(client: KubeClient): void {
  const kc = client.kubeConfig;
  const original = kc.applyToHTTPSOptions.bind(kc);
  let agent: Agent | undefined;
  kc.applyToHTTPSOptions = async (opts: RequestOptions) => {
    await original(opts);
    const tls = opts as { ca?: Buffer; cert?: Buffer; key?: Buffer; agent?: unknown };
    agent ??= new Agent({ keepAlive: true, ca: tls.ca, cert: tls.cert, key: tls.key });
    tls.agent = agent;
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
  const kube = new BenchKube(plane.admin);
  const appliedAt: number[] = [];
  const planeBefore = cpuByCommand(plane.dir);
  const requestsBefore = await kube.requestCounts();
  const start = performance.now();
  const healthy = waitForAll(
    kube,
    '/apis/apps/v1/deployments',
    'labelSelector=cd.svc.space%2Fapp',
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
  const apiserverRequests = cpuDelta(requestsBefore, await kube.requestCounts());
  kube.close();
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
