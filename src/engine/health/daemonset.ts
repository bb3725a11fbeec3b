/** DaemonSet health: scheduled on every node it should be, updated and available there. */
import { count, type Health, type LiveObject, staleGeneration } from './status.ts';

/** Health of a live apps/v1 DaemonSet. */
export function daemonSetHealth(obj: LiveObject): Health {
  const desired = count(obj.status, 'desiredNumberScheduled');
  const ready = count(obj.status, 'numberReady');
  const counts = `${ready}/${desired} ready`;
  if (staleGeneration(obj)) return { status: 'Progressing', message: `${counts}, waiting for rollout` };
  const updated = count(obj.status, 'updatedNumberScheduled');
  const available = count(obj.status, 'numberAvailable');
  if (updated < desired) return { status: 'Progressing', message: `${counts}, ${updated}/${desired} updated` };
  if (available < desired) return { status: 'Progressing', message: `${counts}` };
  return { status: 'Healthy' };
}
