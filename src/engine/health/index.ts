/**
 * Health dispatcher: one check per workload kind (by group/kind), Healthy for every other kind once it exists,
 * Missing when absent; and the aggregate over an App's resources ("worse of", first failing reason).
 */
import { daemonSetHealth } from './daemonset.ts';
import { deploymentHealth } from './deployment.ts';
import { jobHealth } from './job.ts';
import { podHealth } from './pod.ts';
import { statefulSetHealth } from './statefulset.ts';
import { type Health, type HealthStatus, type LiveObject, worse } from './status.ts';

export { HEALTH_ORDER, type Health, type HealthStatus, type LiveObject, worse } from './status.ts';

const CHECKS: Record<string, (obj: LiveObject) => Health> = {
  'apps/Deployment': deploymentHealth,
  'apps/StatefulSet': statefulSetHealth,
  'apps/DaemonSet': daemonSetHealth,
  'batch/Job': jobHealth,
  '/Pod': podHealth,
};

/** Health of one resource: `live` is the object read from the cluster, or undefined when it does not exist. */
export function resourceHealth(
  ref: { apiVersion: string; kind: string; name: string },
  live: LiveObject | undefined,
): Health {
  const { apiVersion, kind } = ref;
  if (!live) return { status: 'Missing', message: `${kind} ${ref.name}: not found` };
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const check = CHECKS[`${group}/${kind}`];
  return check ? check(live) : { status: 'Healthy' };
}

/** The aggregate of an App: worse of all, and the message of the first resource that is not Healthy. */
export function aggregateHealth(items: readonly Health[]): { status: HealthStatus; reason: string } {
  let status: HealthStatus = 'Healthy';
  let reason = '';
  for (const h of items) {
    status = worse(status, h.status);
    if (h.status !== 'Healthy' && reason === '') reason = h.message ?? h.status;
  }
  return { status, reason };
}
