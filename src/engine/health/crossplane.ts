/**
 * Crossplane (`*.crossplane.io`, `*.upbound.io`): managed resources, composites and claims report `Synced` (the
 * last reconcile worked) and `Ready` (the external resource is usable): `Synced=False` is Degraded, `Ready=False`
 * Progressing while `Creating`/`Deleting` and Degraded when `Unavailable`, both True Healthy, no Ready yet
 * Progressing. Packages (pkg.crossplane.io Provider, Configuration, Function) report `Installed` and `Healthy`.
 */
import { readyHealth } from './generic.ts';
import { condition, degraded, type Health, healthy, type LiveObject, progressing, said } from './status.ts';

/** True for an API group of Crossplane or of its providers. */
export const isCrossplaneGroup = (group: string): boolean =>
  group.endsWith('.crossplane.io') || group === 'crossplane.io' || group.endsWith('.upbound.io');

/** Health of a live Crossplane object. */
export function crossplaneHealth(group: string, obj: LiveObject): Health {
  if (group !== 'pkg.crossplane.io') return readyHealth(obj, 'Crossplane');
  const health = condition(obj, 'Healthy');
  if (health?.status === 'False') return degraded(said(health, 'unhealthy'));
  const installed = condition(obj, 'Installed');
  if (installed?.status === 'False') return progressing(said(installed, 'installing'));
  if (installed?.status === 'True' && health?.status === 'True') return healthy();
  return progressing('waiting for the Crossplane package manager');
}
