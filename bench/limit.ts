/**
 * The limit of converge: the same objects the operator would apply for N Apps, server-side-applied by a bare loop
 * (no git, no render, no status) with the operator's concurrency, then waited on until every Deployment is
 * healthy. Its time is the floor the control plane allows; converge reads as ours ÷ this.
 */
import type { ControlPlane } from '../test/harness/index.ts';
import { appName, destinationNamespace, managedLabels, renderedObjects } from './lib/fixture.ts';
import { BenchKube, KubeError, type Obj } from './lib/kube.ts';
import { forEachLimit } from './lib/pool.ts';
import { summarize } from './lib/stats.ts';
import { healthyDeploymentKey, waitForAll } from './lib/wait.ts';

/** What the loop does per App, the way the operator does it: make sure the namespace exists, then apply. */
export interface Applier {
  /** Name of the client, recorded in the result. */
  name: string;
  ensureNamespace(name: string, labels: Record<string, string>): Promise<void>;
  apply(obj: Obj): Promise<void>;
}

/** The bench's own client as an Applier: GET the namespace, POST it when missing, SSA each object. */
export function benchApplier(kube: BenchKube): Applier {
  const collection = (obj: Obj) =>
    obj.kind === 'Deployment'
      ? `/apis/apps/v1/namespaces/${obj.metadata.namespace}/deployments`
      : `/api/v1/namespaces/${obj.metadata.namespace}/${(obj.kind ?? '').toLowerCase()}s`;
  return {
    name: 'bench BenchKube (node:https keep-alive)',
    async ensureNamespace(name, labels) {
      try {
        await kube.request('GET', `/api/v1/namespaces/${name}`);
      } catch (error) {
        if (!(error instanceof KubeError && error.status === 404)) throw error;
        await kube.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
      }
    },
    async apply(obj) {
      await kube.request(
        'PATCH',
        `${collection(obj)}/${obj.metadata.name}?fieldManager=svc-operator&force=true`,
        obj,
        'application/apply-patch+yaml',
      );
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
  const kube = new BenchKube(plane.admin);
  const appliedAt: number[] = [];
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
    await applier.ensureNamespace(destinationNamespace(i), {
      'cd.svc.space/created-for-app': appName(i),
      'cd.svc.space/app-namespace': managedLabels(appName(i))['cd.svc.space/app-namespace'] as string,
    });
    for (const obj of renderedObjects(i)) await applier.apply(obj);
    appliedAt.push(Number(((performance.now() - start) / 1000).toFixed(3)));
  });
  const allAppliedSeconds = Number(((performance.now() - start) / 1000).toFixed(3));
  const at = await healthy;
  kube.close();
  const healthySeconds = [...at.values()];
  return {
    client: applier.name,
    totalSeconds: Math.max(...healthySeconds),
    allAppliedSeconds,
    healthy: summarize(healthySeconds),
    samples: { appliedSeconds: appliedAt, healthySeconds },
  };
}
