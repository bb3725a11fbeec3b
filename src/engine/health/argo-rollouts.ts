/**
 * Argo Rollouts (argoproj.io Rollout): aborted is Degraded; an invalid spec is Degraded; paused (by the user, or at a
 * canary pause step) is Healthy with the remark `paused` (docs/compatibility.md, suspended objects); otherwise the
 * controller's own `status.phase` (Healthy, Progressing, Degraded, Paused) decides, after its observed generation
 * (a string in Rollouts' status) caught up.
 */
import { pendingChange } from './generic.ts';
import { condition, degraded, type Health, healthy, type LiveObject, progressing, said } from './status.ts';

/** Health of a live argoproj.io/v1alpha1 Rollout. */
export function rolloutHealth(obj: LiveObject): Health {
  const status = obj.status ?? {};
  const message = typeof status['message'] === 'string' ? status['message'] : '';
  if (status['abort'] === true) return degraded(`aborted${message ? `: ${message}` : ''}`);
  const invalid = condition(obj, 'InvalidSpec');
  if (invalid?.status === 'True') return degraded(said(invalid, 'invalid spec'));
  const pending = pendingChange(obj);
  if (pending) return pending;
  const pauses = status['pauseConditions'];
  if (obj.spec?.['paused'] === true || (Array.isArray(pauses) && pauses.length > 0)) return healthy('paused');
  switch (status['phase']) {
    case 'Healthy':
      return healthy();
    case 'Paused':
      return healthy('paused');
    case 'Degraded':
      return degraded(message || 'degraded');
    case 'Progressing':
      return progressing(message || 'progressing');
    default:
      return progressing('waiting for the Argo Rollouts controller');
  }
}
