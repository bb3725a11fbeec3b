/** Deployment health, following `kubectl rollout status`: rollout complete and every desired replica available. */
import { condition, count, type Health, type LiveObject, staleGeneration } from './status.ts';

/** Health of a live apps/v1 Deployment. */
export function deploymentHealth(obj: LiveObject): Health {
  const desired = count(obj.spec, 'replicas', 1);
  const ready = count(obj.status, 'readyReplicas');
  const counts = `${ready}/${desired} ready`;
  if (obj.spec?.['paused'] === true) return { status: 'Healthy', message: `paused, ${counts}` };
  const progressing = condition(obj, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return { status: 'Degraded', message: `${counts}, progress deadline exceeded` };
  }
  if (staleGeneration(obj)) return { status: 'Progressing', message: `${counts}, waiting for rollout` };
  const updated = count(obj.status, 'updatedReplicas');
  const total = count(obj.status, 'replicas');
  const available = count(obj.status, 'availableReplicas');
  if (updated < desired) return { status: 'Progressing', message: `${counts}, ${updated}/${desired} updated` };
  if (total > updated) return { status: 'Progressing', message: `${counts}, old replicas terminating` };
  if (available < updated) return { status: 'Progressing', message: `${counts}` };
  return { status: 'Healthy' };
}
