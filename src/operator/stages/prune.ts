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
import { waveOrZero } from '../../engine/sync-plan.ts';
import { type AnyObject, isConflict, type ObjectRef } from '../../kube/index.ts';
import type { DestinationCache } from '../live/index.ts';

export interface RemoveResult {
  /** Every object deleted, with the wave it was deleted in (`describeRef` names one). */
  deleted: Array<{ ref: ObjectRef; wave: number }>;
  /** Entries still owned after a failed delete: they stay in the inventory, to be retried. */
  kept: InventoryEntry[];
  /** One line per failed delete. */
  errors: string[];
}

/**
 * Waits `POLL_MS` once, or fails (a deadline passed, the operation was terminated, the process may no longer write);
 * `waiting` says what for. The staged sync's `tick` (./waves.ts).
 */
export type Tick = (waiting: string) => Promise<void>;

/** Removes the objects of `previous` that are not in `rendered` (see removeOwned). */
export function prune(
  live: DestinationCache,
  app: AppKey,
  previous: readonly InventoryEntry[],
  rendered: readonly AnyObject[],
  tick?: Tick,
): Promise<RemoveResult> {
  const keep = new Set(rendered.map(inventoryId));
  return removeOwned(
    live,
    app,
    previous.filter((e) => !keep.has(e.id)),
    tick,
  );
}

/**
 * Deletes every object of `entries` that still exists and is still owned by `app`, in reverse wave order, Namespaces
 * last (`deleteOrder`). Objects already gone, being deleted, or owned by someone else now leave the inventory. With
 * `tick`, each wave's deletions are waited for until they are gone from the live cache before the next wave is
 * deleted (an object whose own finalizers hold it holds the next wave: Argo CD's order), and, with `waitLast`, the
 * last wave's too; the wait ends as `tick` fails (the operation's deadline).
 */
export async function removeOwned(
  live: DestinationCache,
  app: AppKey,
  entries: readonly InventoryEntry[],
  tick?: Tick,
  waitLast = false,
): Promise<RemoveResult> {
  const result: RemoveResult = { deleted: [], kept: [], errors: [] };
  const waves = await deleteOrder(live, entries);
  for (const [i, { wave: number, entries: wave }] of waves.entries()) {
    for (const entry of wave) {
      const ref = refOf(entry);
      try {
        if (await deleteIfOwned(live, app, ref)) result.deleted.push({ ref, wave: number });
      } catch (err) {
        result.kept.push(entry);
        result.errors.push(`${describeRef(ref)}: ${describeError(err)}`);
      }
    }
    if (tick && (i < waves.length - 1 || waitLast)) {
      const failed = new Set(result.kept.map((e) => e.id));
      await waitGone(live, app, wave.filter((e) => !failed.has(e.id)).map(refOf), tick);
    }
  }
  return result;
}

/** `Kind namespace/name`. */
export const describeRef = (ref: ObjectRef): string =>
  `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;

/**
 * Waits until none of `refs` is live any more as an object of `app` (deleted, its finalizers done); an object
 * another owner took over is not waited for.
 */
export async function waitGone(live: DestinationCache, app: AppKey, refs: readonly ObjectRef[], tick: Tick) {
  for (;;) {
    const left: ObjectRef[] = [];
    for (const ref of refs) {
      const obj = await live.get(ref);
      if (obj && isOwnedBy(obj, app)) left.push(ref);
    }
    if (left.length === 0) return;
    await tick(`waiting for ${left.map(describeRef).join(', ')} to be deleted`);
  }
}

/**
 * The order of deletion, in groups deleted one after the other: the reverse of the apply waves (highest `sync-wave`
 * of the live object first, see src/engine/sync-plan.ts), Namespaces last (deleting one removes what is in it). A
 * live object that cannot be read now, or carries a wave that is not a number, counts as wave 0: the delete itself
 * reports what is wrong with it.
 */
async function deleteOrder(
  live: DestinationCache,
  entries: readonly InventoryEntry[],
): Promise<Array<{ wave: number; entries: InventoryEntry[] }>> {
  const keyed = await Promise.all(
    entries.map(async (entry, i) => {
      const obj = await live.get(refOf(entry)).catch(() => undefined);
      const wave = obj ? waveOrZero(obj) : 0;
      return { entry, i, wave, ns: Number(refOf(entry).kind === 'Namespace') };
    }),
  );
  keyed.sort((a, b) => a.ns - b.ns || b.wave - a.wave || a.i - b.i);
  const groups: Array<{ wave: number; entries: InventoryEntry[] }> = [];
  let last: { ns: number; wave: number } | undefined;
  for (const k of keyed) {
    if (!last || last.ns !== k.ns || last.wave !== k.wave) groups.push({ wave: k.wave, entries: [] });
    groups.at(-1)?.entries.push(k.entry);
    last = k;
  }
  return groups;
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
