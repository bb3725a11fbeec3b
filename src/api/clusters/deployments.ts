/**
 * The deployments of a cluster (contract §1: Apps with the same {cluster, namespace} destination form one): how many
 * the org has there and how many are healthy (every App of the group reads Healthy). Pure.
 */
import type { AppResource } from '../../core/app-schema.ts';

/** Counts the deployments of `apps` on `cluster` ('' = the management cluster) and the healthy ones. */
export function deploymentCounts(
  apps: readonly AppResource[],
  cluster: string,
): { deploymentCount: number; healthyDeployments: number } {
  const healthy = new Map<string, boolean>();
  for (const app of apps) {
    if ((app.spec.destination.cluster ?? '') !== cluster) continue;
    const ns = app.spec.destination.namespace;
    healthy.set(ns, (healthy.get(ns) ?? true) && app.status?.healthStatus === 'Healthy');
  }
  return { deploymentCount: healthy.size, healthyDeployments: [...healthy.values()].filter(Boolean).length };
}

/** `namespace/name` of the Apps of `apps` that deploy to `cluster`. */
export function appsTargeting(apps: readonly AppResource[], cluster: string): AppResource[] {
  return apps.filter((a) => (a.spec.destination.cluster ?? '') === cluster);
}
