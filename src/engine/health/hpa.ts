/**
 * HorizontalPodAutoscaler health by its conditions: `AbleToScale=False` (cannot read or update the target's scale)
 * or `ScalingActive=False` (cannot compute a replica count, e.g. no metrics) is Degraded, except `ScalingDisabled`
 * (the target is scaled to zero on purpose: Healthy); both True is Healthy; no conditions yet is Progressing.
 */
import { condition, degraded, type Health, healthy, type LiveObject, progressing, said } from './status.ts';

/** Health of a live autoscaling/v2 (or v1 with conditions in status) HorizontalPodAutoscaler. */
export function hpaHealth(obj: LiveObject): Health {
  const able = condition(obj, 'AbleToScale');
  if (able?.status === 'False') return degraded(said(able, 'cannot scale'));
  const active = condition(obj, 'ScalingActive');
  if (active?.status === 'False') {
    return active.reason === 'ScalingDisabled' ? healthy('scaling disabled') : degraded(said(active, 'not scaling'));
  }
  if (able?.status === 'True' && active?.status === 'True') return healthy();
  return progressing('waiting for the autoscaler');
}
