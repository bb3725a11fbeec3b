/**
 * The generic rules (the kstatus model) for a kind without a check of its own, and the base most ecosystem checks
 * build on. In order, the first that applies decides (docs/operator.md "Health"):
 *
 *   1. `metadata.deletionTimestamp` set                                   → Progressing (being deleted)
 *   2. `status.observedGeneration` behind `metadata.generation`          → Progressing (not yet observed)
 *   3. condition `Stalled=True` or `Failed=True`                          → Degraded
 *   4. condition `Synced=False` (Crossplane's "cannot reconcile")         → Degraded
 *   5. condition `Reconciling=True`                                       → Progressing
 *   6. condition `Ready=False` with a failure reason (FAILURE_REASON)     → Degraded
 *   7. condition `Ready=False` (any other reason) or `Ready=Unknown`      → Progressing
 *   8. condition `Ready`, `Available` or `Succeeded` True                 → Healthy
 *   9. anything else, including no status at all                          → Healthy (it exists)
 */
import {
  behindGeneration,
  condition,
  degraded,
  type Health,
  healthy,
  type LiveObject,
  progressing,
  said,
} from './status.ts';

/**
 * A `Ready=False` reason that names a failure rather than work under way: `ReconciliationFailed`, `BuildFailed`,
 * `SecretSyncedError`, `InvalidProviderConfig`, `Unavailable`, `Expired`… (`Progressing`, `DependencyNotReady`,
 * `Creating`, `DoesNotExist` are not).
 */
export const FAILURE_REASON =
  /fail|error|invalid|denied|forbidden|unauthori[sz]ed|expired|backoff|rejected|timeout|timedout|exceeded|notfound|conflict|unavailable|stalled|missing/i;

/** Rules 1 and 2: the object is being deleted, or its controller has not seen its latest spec. */
export function pendingChange(obj: LiveObject): Health | undefined {
  if (obj.metadata?.deletionTimestamp) return progressing('being deleted');
  if (behindGeneration(obj)) {
    const gen = obj.metadata?.generation ?? 0;
    return progressing(`waiting for the controller to observe generation ${gen}`);
  }
  return undefined;
}

/** Rules 3 to 7: what the kstatus conditions say, or undefined when they say nothing. */
export function conditionHealth(obj: LiveObject): Health | undefined {
  for (const type of ['Stalled', 'Failed']) {
    const c = condition(obj, type);
    if (c?.status === 'True') return degraded(said(c, type.toLowerCase()));
  }
  const synced = condition(obj, 'Synced');
  if (synced?.status === 'False') return degraded(said(synced, 'not synced'));
  const reconciling = condition(obj, 'Reconciling');
  if (reconciling?.status === 'True') return progressing(said(reconciling, 'reconciling'));
  const ready = condition(obj, 'Ready');
  if (ready?.status === 'False') {
    return FAILURE_REASON.test(ready.reason ?? '')
      ? degraded(said(ready, 'not ready'))
      : progressing(said(ready, 'not ready'));
  }
  if (ready?.status === 'Unknown') return progressing(said(ready, 'readiness unknown'));
  return undefined;
}

/** Health by the generic rules, for any kind. */
export function genericHealth(obj: LiveObject): Health {
  return pendingChange(obj) ?? conditionHealth(obj) ?? healthy();
}

/**
 * The generic rules for a kind whose controller always reports `Ready`: no Ready condition yet means the controller
 * has not got to it (Progressing, "waiting for <controller>") rather than Healthy.
 */
export function readyHealth(obj: LiveObject, controller: string): Health {
  const known = pendingChange(obj) ?? conditionHealth(obj);
  if (known) return known;
  if (condition(obj, 'Ready')?.status === 'True') return healthy();
  return progressing(`waiting for ${controller}`);
}

/** Like readyHealth, for kinds whose `Ready=False` always means a failure (issuers, secret stores). */
export function readyOrDegraded(obj: LiveObject, controller: string): Health {
  const ready = condition(obj, 'Ready');
  if (ready?.status === 'False' && !obj.metadata?.deletionTimestamp) return degraded(said(ready, 'not ready'));
  return readyHealth(obj, controller);
}
