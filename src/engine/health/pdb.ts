/**
 * PodDisruptionBudget health: fewer healthy pods than the budget needs (`currentHealthy` below `desiredHealthy`:
 * no disruption is allowed, and an eviction would be refused) is Degraded; otherwise Healthy.
 */
import { count, degraded, type Health, healthy, type LiveObject, progressing, staleGeneration } from './status.ts';

/** Health of a live policy/v1 PodDisruptionBudget. */
export function pdbHealth(obj: LiveObject): Health {
  if (staleGeneration(obj)) return progressing('waiting for the disruption controller');
  const current = count(obj.status, 'currentHealthy');
  const desired = count(obj.status, 'desiredHealthy');
  const allowed = count(obj.status, 'disruptionsAllowed');
  if (current < desired) return degraded(`${current} healthy pods, ${desired} needed, ${allowed} disruptions allowed`);
  return healthy();
}
