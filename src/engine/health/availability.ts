/**
 * The apiserver's own objects: an APIService is Healthy once `Available` (its backend answers), Degraded when not;
 * a CustomResourceDefinition once `Established`, Degraded when its names are refused (`NamesAccepted=False`).
 */
import { condition, degraded, type Health, healthy, type LiveObject, progressing, said } from './status.ts';

/** Health of a live apiregistration.k8s.io/v1 APIService. */
export function apiServiceHealth(obj: LiveObject): Health {
  const available = condition(obj, 'Available');
  if (available?.status === 'True') return healthy();
  if (available?.status === 'False') return degraded(said(available, 'not available'));
  return progressing('waiting for the aggregator');
}

/** Health of a live apiextensions.k8s.io/v1 CustomResourceDefinition. */
export function crdHealth(obj: LiveObject): Health {
  const names = condition(obj, 'NamesAccepted');
  if (names?.status === 'False') return degraded(said(names, 'names not accepted'));
  if (condition(obj, 'Established')?.status === 'True') return healthy();
  return progressing('waiting to be established');
}
