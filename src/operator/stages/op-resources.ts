/**
 * What an operation did to each object, for `operationState.resources` (Argo CD's `syncResult.resources`): the
 * objects applied (Synced, with their wave), pruned, and the hooks run with how they ended, in the order it happened.
 */
import { MAX_OPERATION_RESOURCES } from '../../core/app-names.ts';
import type { OperationResource, OperationState } from '../../core/app-schema.ts';
import { waveOrZero } from '../../engine/sync-plan.ts';
import { type AnyObject, type ObjectRef, objectRef } from '../../kube/index.ts';

/** One entry for `ref`. */
export function operationResource(
  ref: ObjectRef,
  result: OperationResource['result'],
  where: { syncPhase: OperationResource['syncPhase']; wave: number },
  message?: string,
): OperationResource {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    name: ref.name,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    result,
    syncPhase: where.syncPhase,
    wave: where.wave,
    ...(message ? { message } : {}),
  };
}

/** The entries of objects an apply wrote: Synced, in the Sync phase, at their wave (0 when it cannot be read). */
export function appliedResources(objects: readonly AnyObject[]): OperationResource[] {
  return objects.map((o) => operationResource(objectRef(o), 'Synced', { syncPhase: 'Sync', wave: waveOrZero(o) }));
}

/** `resources` (and `resourcesOmitted`) for an operation's record: the first MAX_OPERATION_RESOURCES entries. */
export function listedResources(
  all: readonly OperationResource[],
): Pick<OperationState, 'resources' | 'resourcesOmitted'> {
  if (all.length === 0) return {};
  const omitted = all.length - MAX_OPERATION_RESOURCES;
  return { resources: all.slice(0, MAX_OPERATION_RESOURCES), ...(omitted > 0 ? { resourcesOmitted: omitted } : {}) };
}
