/**
 * Prune: deletes what left the App's inventory (status.inventory) — the previous inventory minus the rendered set —
 * and nothing else; no LIST. Each object is deleted only while it still carries this App's two labels (name AND
 * owner namespace), with the uid and resourceVersion it was checked at as preconditions, so an object another
 * owner took over in between is never deleted. Namespaces created for the App carry other labels and are never in
 * the inventory.
 */
import { describeError } from '../../core/errors.ts';
import { type InventoryEntry, inventoryId, refOf } from '../../engine/inventory.ts';
import { type AppKey, isOwnedBy } from '../../engine/labels.ts';
import { waveOf } from '../../engine/sync-plan.ts';
import { type AnyObject, isConflict, type ObjectRef } from '../../kube/index.ts';
import type { DestinationCache } from '../live/index.ts';

export interface RemoveResult {
  /** `Kind namespace/name` of every object deleted. */
  deleted: string[];
  /** Entries still owned after a failed delete: they stay in the inventory, to be retried. */
  kept: InventoryEntry[];
  /** One line per failed delete. */
  errors: string[];
}

/** Removes the objects of `previous` that are not in `rendered` (see removeOwned). */
export function prune(
  live: DestinationCache,
  app: AppKey,
  previous: readonly InventoryEntry[],
  rendered: readonly AnyObject[],
): Promise<RemoveResult> {
  const keep = new Set(rendered.map(inventoryId));
  return removeOwned(
    live,
    app,
    previous.filter((e) => !keep.has(e.id)),
  );
}

/**
 * Deletes every object of `entries` that still exists and is still owned by `app`, in reverse wave order, Namespaces
 * last (`deleteOrder`). Objects already gone, being deleted, or owned by someone else now leave the inventory.
 */
export async function removeOwned(
  live: DestinationCache,
  app: AppKey,
  entries: readonly InventoryEntry[],
): Promise<RemoveResult> {
  const result: RemoveResult = { deleted: [], kept: [], errors: [] };
  for (const entry of await deleteOrder(live, entries)) {
    const ref = refOf(entry);
    const what = `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
    try {
      if (await deleteIfOwned(live, app, ref)) result.deleted.push(what);
    } catch (err) {
      result.kept.push(entry);
      result.errors.push(`${what}: ${describeError(err)}`);
    }
  }
  return result;
}

/**
 * The order of deletion: the reverse of the apply waves (highest `sync-wave` of the live object first, see
 * src/engine/sync-plan.ts), Namespaces last (deleting one removes what is in it). A live object that cannot be read
 * now, or carries a wave that is not a number, counts as wave 0: the delete itself reports what is wrong with it.
 */
async function deleteOrder(live: DestinationCache, entries: readonly InventoryEntry[]): Promise<InventoryEntry[]> {
  const keyed = await Promise.all(
    entries.map(async (entry, i) => {
      const obj = await live.get(refOf(entry)).catch(() => undefined);
      let wave = 0;
      try {
        wave = obj ? waveOf(obj) : 0;
      } catch {
        // not a number: wave 0
      }
      return { entry, i, wave, ns: Number(refOf(entry).kind === 'Namespace') };
    }),
  );
  keyed.sort((a, b) => a.ns - b.ns || b.wave - a.wave || a.i - b.i);
  return keyed.map((k) => k.entry);
}

/**
 * Deletes `ref` if it exists, is not being deleted and carries `app`'s labels; true when it was deleted. The check
 * reads the cache (a GET when the cache does not have it: the watch may lag); a 409 on the delete means the object
 * changed since, so it is read again by GET and checked once more.
 */
async function deleteIfOwned(live: DestinationCache, app: AppKey, ref: ObjectRef): Promise<boolean> {
  let obj = (await live.get(ref)) ?? (await live.client.get(ref));
  for (let attempt = 0; ; attempt++) {
    if (!obj || obj.metadata['deletionTimestamp'] || !isOwnedBy(obj, app)) return false;
    try {
      const preconditions = { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion };
      return await live.client.delete(ref, preconditions);
    } catch (err) {
      if (!isConflict(err) || attempt > 0) throw err;
      obj = await live.client.get(ref);
    }
  }
}
