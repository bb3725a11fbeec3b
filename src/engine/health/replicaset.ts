/** ReplicaSet health: a failure to create Pods (ReplicaFailure) is Degraded; then every desired replica ready. */
import {
  condition,
  count,
  degraded,
  type Health,
  healthy,
  type LiveObject,
  progressing,
  said,
  staleGeneration,
} from './status.ts';

/** Health of a live apps/v1 ReplicaSet. */
export function replicaSetHealth(obj: LiveObject): Health {
  const desired = count(obj.spec, 'replicas', 1);
  const ready = count(obj.status, 'readyReplicas');
  const counts = `${ready}/${desired} ready`;
  const failure = condition(obj, 'ReplicaFailure');
  if (failure?.status === 'True') return degraded(`${counts}, ${said(failure, 'cannot create pods')}`);
  if (staleGeneration(obj)) return progressing(`${counts}, waiting for the controller`);
  return ready < desired ? progressing(counts) : healthy();
}
