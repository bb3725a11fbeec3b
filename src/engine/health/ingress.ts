/**
 * Ingress health: once an ingress class is set (spec.ingressClassName, or the older `kubernetes.io/ingress.class`
 * annotation), its controller publishes an address; without a class no controller may ever answer, so it is
 * Healthy once it exists.
 */
import { hasAddress } from './service.ts';
import { type Health, healthy, type LiveObject, progressing } from './status.ts';

const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** Health of a live networking.k8s.io/v1 Ingress. */
export function ingressHealth(obj: LiveObject): Health {
  const cls = obj.spec?.['ingressClassName'] ?? obj.metadata?.annotations?.[CLASS_ANNOTATION];
  if (typeof cls !== 'string' || cls === '') return healthy();
  return hasAddress(obj) ? healthy() : progressing(`waiting for an address from ingress class ${cls}`);
}
