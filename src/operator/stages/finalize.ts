/**
 * Finalize: on deletion of a cascade-policy App, delete every object of its inventory that still carries its
 * labels (an App from a release before the inventory has it built first, see loadInventory). The destination
 * namespace it created carries other labels and stays.
 */
import type { AppResource } from '../../core/app-schema.ts';
import { loadInventory } from '../../engine/inventory.ts';
import { DELETE_POLICY_ANNOTATION } from '../../engine/labels.ts';
import type { DestinationCache } from '../live/index.ts';
import { removeOwned } from './prune.ts';

/** True when the App asks to keep what it applied (`cd.svc.space/delete-policy: orphan`). */
export function orphans(app: AppResource): boolean {
  return app.metadata.annotations?.[DELETE_POLICY_ANNOTATION] === 'orphan';
}

/** Deletes every object the App owns; returns how many were deleted. Throws when any delete fails. */
export async function deleteApplied(live: DestinationCache, app: AppResource): Promise<number> {
  const { entries } = await loadInventory(live.client, app);
  const removed = await removeOwned(
    live,
    { namespace: app.metadata.namespace ?? '', name: app.metadata.name },
    entries,
  );
  if (removed.errors.length > 0) throw new Error(`cannot delete ${removed.errors.join('; ')}`);
  return removed.deleted.length;
}
