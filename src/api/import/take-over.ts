/**
 * The take-over step of an import's apply (issue 28 item 2; docs/migrate.md "Steps and how to go back"): each mapped
 * App is created pending (never prunes, orphans on deletion) with a Sync, so svc's forced server-side apply takes the
 * live objects from the old controller's field manager; then the old controller is told to let go of them (Argo CD:
 * its resources finalizer and automated sync removed; Flux: suspended), what it was recorded on the App for undo.
 * The imported objects are read where the caller says they live (`let_go_cluster`: '' = the management cluster, or a
 * registered cluster): the connection is a parameter, whatever the import read its documents from.
 */

import { SvcError } from '../../core/errors.ts';
import type { ImportEntry } from '../../core/import/index.ts';
import {
  IMPORT_ANNOTATION,
  IMPORT_ORIGIN_ANNOTATION,
  type ImportOrigin,
  letGoPatch,
  letGoProblem,
} from '../../core/import/take-over.ts';
import type { AnyObject, ObjectRef } from '../../core/kube-object.ts';
import type { ObjectClient } from '../../kube/index.ts';
import { importApp } from '../apps/use-cases.ts';
import type { UseCaseContext } from '../use-case.ts';

/** What became of the old controller of an imported object. */
export interface LetGo {
  status: 'done' | 'not_performed' | 'failed';
  note: string;
}

/** What apply did with an App entry. */
export interface TakeOverOutcome {
  status: 'created' | 'failed';
  error?: string;
  let_go?: LetGo;
}

/** The imported object's identity, as the Kubernetes API names it. */
function refOf(entry: ImportEntry): ObjectRef {
  const { apiVersion, kind, name, namespace } = entry.object;
  return { apiVersion, kind, name, ...(namespace ? { namespace } : {}) };
}

/** The old controller's object as it lives now, with the patch that makes it let go; or why it cannot. */
async function readOld(
  objects: ObjectClient,
  ref: ObjectRef,
): Promise<{ live: AnyObject; plan: ReturnType<typeof letGoPatch> } | { note: string }> {
  const live = await objects.get(ref);
  if (!live) return { note: `${ref.kind} ${ref.namespace ?? ''}/${ref.name} not found in the cluster` };
  return { live, plan: letGoPatch(live) };
}

/**
 * Creates the entry's App pending and tells the old controller to let go. Without `cluster` (documents only), the
 * App is created and let-go is reported not performed. Needs `cluster:manage` (in the org) to change objects of the
 * cluster beyond svc's own; each App needs what create needs.
 */
export async function takeOver(
  ctx: UseCaseContext,
  entry: ImportEntry,
  cluster: string | undefined,
): Promise<TakeOverOutcome> {
  const ref = refOf(entry);
  const origin: ImportOrigin = { ...ref, ...(cluster !== undefined ? { cluster } : {}) };
  let old: Awaited<ReturnType<typeof readOld>> | undefined;
  let objects: ObjectClient | undefined;
  try {
    const problem = letGoProblem(ref);
    if (cluster === undefined)
      old = { note: 'not performed: the objects were not read from a cluster (let_go_cluster)' };
    else if (problem) old = { note: `not performed: ${problem}` };
    else {
      ctx.require('cluster:manage');
      objects = (await ctx.services.destinations.connection(ctx.actor.org.id, cluster)).objects;
      old = await readOld(objects, ref);
      if ('plan' in old) origin.restore = old.plan.restore;
    }
    const annotations = { [IMPORT_ANNOTATION]: 'pending', [IMPORT_ORIGIN_ANNOTATION]: JSON.stringify(origin) };
    await ctx.run(importApp, { body: entry.app, annotations });
  } catch (err) {
    if (err instanceof SvcError) return { status: 'failed', error: err.message };
    throw err;
  }
  if (objects && 'plan' in old) return { status: 'created', let_go: await patchOld(objects, ref, old.plan.patch) };
  return { status: 'created', let_go: { status: 'not_performed', note: 'note' in old ? old.note : '' } };
}

/** Writes the let-go patch; a refusal of the cluster (a conflict, a missing CRD) is reported, not thrown. */
async function patchOld(objects: ObjectClient, ref: ObjectRef, patch: Record<string, unknown>): Promise<LetGo> {
  try {
    await objects.mergePatch(ref, patch);
  } catch (err) {
    return { status: 'failed', note: `the ${ref.kind} was not changed: ${(err as Error).message}` };
  }
  const what =
    ref.kind === 'Application' ? 'its resources finalizer and automated sync removed' : 'suspended (spec.suspend)';
  return { status: 'done', note: `${ref.kind} ${ref.namespace ?? ''}/${ref.name}: ${what}` };
}
