/** StatefulSet health: every desired replica ready and, with RollingUpdate, running the update revision. */
import { count, type Health, type LiveObject, staleGeneration } from './status.ts';

/** Health of a live apps/v1 StatefulSet. */
export function statefulSetHealth(obj: LiveObject): Health {
  const desired = count(obj.spec, 'replicas', 1);
  const ready = count(obj.status, 'readyReplicas');
  const counts = `${ready}/${desired} ready`;
  if (staleGeneration(obj)) return { status: 'Progressing', message: `${counts}, waiting for rollout` };
  if (ready < desired) return { status: 'Progressing', message: `${counts}` };
  const strategy = (obj.spec?.['updateStrategy'] as { type?: string } | undefined)?.type ?? 'RollingUpdate';
  if (strategy === 'RollingUpdate') {
    const updated = count(obj.status, 'updatedReplicas');
    const current = obj.status?.['currentRevision'];
    const update = obj.status?.['updateRevision'];
    if (updated < desired || (update !== undefined && current !== update)) {
      return { status: 'Progressing', message: `${counts}, ${updated}/${desired} updated` };
    }
  }
  return { status: 'Healthy' };
}
