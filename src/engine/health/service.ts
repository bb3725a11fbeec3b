/** Service health: a LoadBalancer needs an ingress address from its cloud controller; other types are Healthy. */
import { type Health, healthy, type LiveObject, progressing } from './status.ts';

/** Health of a live v1 Service. */
export function serviceHealth(obj: LiveObject): Health {
  if (obj.spec?.['type'] !== 'LoadBalancer') return healthy();
  return hasAddress(obj) ? healthy() : progressing('waiting for a load balancer address');
}

/** True when `status.loadBalancer.ingress` holds at least one address (Service and Ingress alike). */
export function hasAddress(obj: LiveObject): boolean {
  const ingress = (obj.status?.['loadBalancer'] as { ingress?: unknown[] } | undefined)?.ingress;
  return Array.isArray(ingress) && ingress.length > 0;
}
