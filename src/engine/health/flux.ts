/**
 * Flux (`*.toolkit.fluxcd.io`: Kustomization, HelmRelease, the sources…): kstatus-compliant, so the generic Ready
 * rules apply, with `spec.suspend` Healthy with the remark `suspended` (docs/compatibility.md) and no Ready condition
 * yet Progressing (the controller has not reconciled it).
 */
import { readyHealth } from './generic.ts';
import { type Health, healthy, type LiveObject, suspended } from './status.ts';

/** True for an API group served by Flux's controllers. */
export const isFluxGroup = (group: string): boolean => group.endsWith('.toolkit.fluxcd.io');

/** Health of a live Flux object. */
export function fluxHealth(obj: LiveObject): Health {
  if (suspended(obj)) return healthy('suspended');
  return readyHealth(obj, 'the Flux controller');
}
