/**
 * Health stage: looks each rendered object up in the destination's live state (the watch cache; a GET only for
 * kinds not synced there yet) and assesses it with the per-kind checks and for drift (../drift.ts: a field svc
 * applied that another writer took, or the object gone); yields `resources[]`, the drifted objects and the App's
 * aggregate health.
 */
import type { HealthStatus, IgnoreDifference, ResourceStatus, SyncStatus } from '../../core/app-schema.ts';
import type { AnyObject, ObjectRef } from '../../kube/index.ts';
import { driftOf, type ObjectDrift } from '../drift.ts';
import { ignoredOf } from '../ignore.ts';
import type { CustomChecks } from './custom.ts';
import { aggregateHealth, type Health, type LiveObject, labelled, resourceHealth } from './index.ts';

/** What health (and prune) need of the live state: the object as it is now, or undefined when it does not exist. */
export interface LiveReader {
  get(ref: ObjectRef): Promise<AnyObject | undefined>;
}

export interface HealthResult {
  status: HealthStatus;
  reason: string;
  resources: ResourceStatus[];
  /** The objects that drifted (missing ones included), in the order of `objects`; not part of the status. */
  drift?: ObjectDrift[];
}

/**
 * Assesses `objects` (the desired set) against `live`, with the App's and org's `custom` checks where one applies to
 * a kind. `inSync` says whether the applied state matches the desired one; a missing or drifted object is OutOfSync
 * either way; `ignore` (the App's spec.ignoreDifferences) names fields that never count as drift.
 */
export async function assessHealth(
  live: LiveReader,
  objects: AnyObject[],
  inSync: boolean,
  custom?: CustomChecks,
  ignore?: readonly IgnoreDifference[],
): Promise<HealthResult> {
  const healths: Health[] = [];
  const resources: ResourceStatus[] = [];
  const drift: ObjectDrift[] = [];
  for (const o of objects) {
    const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace };
    let found: AnyObject | undefined;
    let h: Health;
    try {
      found = await live.get(ref);
      const check = found && custom?.checkFor(ref.apiVersion, ref.kind);
      h = check
        ? labelled(ref, await (custom as CustomChecks).evaluate(check, found as LiveObject))
        : resourceHealth(ref, found as LiveObject | undefined);
    } catch (err) {
      h = labelled(ref, { status: 'Unknown', message: (err as Error).message });
    }
    healths.push(h);
    const drifted = driftOf(o, found, ignoredOf(ignore, o));
    if (drifted) drift.push(drifted);
    const syncStatus: SyncStatus = inSync && !drifted ? 'Synced' : 'OutOfSync';
    resources.push({
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: o.metadata.name,
      ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
      syncStatus,
      healthStatus: h.status,
      ...(h.message ? { message: h.message } : {}),
    });
  }
  const agg = aggregateHealth(healths);
  return { status: agg.status, reason: agg.reason, resources, drift };
}
