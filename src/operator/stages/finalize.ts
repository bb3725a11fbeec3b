/**
 * Finalize: on deletion of a cascade-policy App, delete every object of its inventory that still carries its
 * labels (an App from a release before the inventory has it built first, see loadInventory), in reverse wave order,
 * each wave gone before the next is deleted; then, when the App's source at its last applied revision has PostDelete
 * hooks, wait until everything it applied is gone and run them (./waves.ts: created, waited for, their delete policy
 * applied). The destination namespace it created carries other labels and stays.
 */
import type { AppResource } from '../../core/app-schema.ts';
import { importPending } from '../../core/import/take-over.ts';
import { loadInventory } from '../../engine/inventory.ts';
import { DELETE_POLICY_ANNOTATION } from '../../engine/labels.ts';
import type { Wave } from '../../engine/sync-plan.ts';
import type { DestinationCache } from '../live/index.ts';
import { removeOwned } from './prune.ts';
import { runPhase, tick, type WaveContext } from './waves.ts';

/**
 * True when the App asks to keep what it applied (`cd.svc.space/delete-policy: orphan`), or is an import not
 * confirmed yet: its objects were the old controller's and stay when the take-over is abandoned.
 */
export function orphans(app: AppResource): boolean {
  const annotations = app.metadata.annotations;
  return annotations?.[DELETE_POLICY_ANNOTATION] === 'orphan' || importPending(annotations);
}

/** What a deletion runs after the App's objects are gone: its PostDelete hooks, and the context they run in. */
export interface PostDelete {
  ctx: WaveContext;
  /** The PostDelete hooks of the App's last applied revision, wave by wave. */
  hooks: readonly Wave[];
}

/**
 * Deletes every object the App owns, each wave gone before the next is deleted (bounded by the deadline of
 * `after.ctx`); with PostDelete hooks, waits until all of them are gone and runs the hooks. Answers how many objects
 * were deleted. Throws when any delete fails, when a PostDelete hook failed (StageError 'hook', after its HookFailed
 * Event), or at the deadline (StageError, DeadlineExceededError).
 */
export async function deleteApplied(live: DestinationCache, app: AppResource, after: PostDelete): Promise<number> {
  const { entries } = await loadInventory(live.client, app);
  const { ctx, hooks } = after;
  const key = { namespace: app.metadata.namespace ?? '', name: app.metadata.name };
  const removed = await removeOwned(live, key, entries, (waiting) => tick(ctx, waiting), hooks.length > 0);
  if (removed.errors.length > 0) throw new Error(`cannot delete ${removed.errors.join('; ')}`);
  await runPhase(ctx, hooks);
  return removed.deleted.length;
}
