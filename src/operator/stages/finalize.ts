/**
 * Finalize: on deletion of a cascade-policy App, delete every live object carrying its labels across every kind
 * it ever applied (and the kinds of its last known resources). The destination namespace it created carries other
 * labels and stays.
 */
import type { AppResource } from '../../core/app-schema.ts';
import type { ObjectClient } from '../../kube/index.ts';
import { DELETE_POLICY_ANNOTATION } from '../labels.ts';
import { kindOf, listManaged } from './prune.ts';

/** True when the App asks to keep what it applied (`cd.svc.space/delete-policy: orphan`). */
export function orphans(app: AppResource): boolean {
  return app.metadata.annotations?.[DELETE_POLICY_ANNOTATION] === 'orphan';
}

/** Deletes every object the App applied; returns how many were deleted. Throws when the destination fails. */
export async function deleteApplied(target: ObjectClient, app: AppResource): Promise<number> {
  const kinds = new Set([...(app.status?.appliedKinds ?? []), ...(app.status?.resources ?? []).map(kindOf)]);
  const live = await listManaged(target, { namespace: app.metadata.namespace ?? '', name: app.metadata.name }, kinds);
  for (const o of live) {
    await target.delete({
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: o.metadata.name,
      namespace: o.metadata.namespace,
    });
  }
  return live.length;
}
