/**
 * Ending an import's take-over (docs/migrate.md "Steps and how to go back"): confirm drops the App's import marker
 * (it prunes and cascades deletion from then on); undo puts the old controller's settings back where svc recorded
 * them (src/core/import/take-over.ts) and deletes the App, which, still pending, orphans every live object.
 */

import type { AppResource } from '../../core/app-schema.ts';
import { UnprocessableError } from '../../core/errors.ts';
import {
  IMPORT_ANNOTATION,
  IMPORT_ORIGIN_ANNOTATION,
  type ImportOrigin,
  importOriginOf,
  importPending,
  oldManagersOf,
  restorePatch,
} from '../../core/import/take-over.ts';
import { orgNamespace } from '../../core/names.ts';
import { refOf } from '../../engine/inventory.ts';
import { appScope, auditApp, kubeOf, locateApp } from '../apps/access.ts';
import type { AppRef } from '../apps/scope.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';

/** The answer of confirm and undo. */
export interface ImportConfirmation {
  name: string;
  namespace: string;
  import: 'confirmed' | 'undone';
  /** confirm: objects whose old field manager svc removed from managedFields. */
  released?: number;
  restored?: { status: 'done' | 'not_performed' | 'failed'; note: string };
}

/** 422 unless the App is still a pending import. */
function requirePending(app: AppResource): void {
  if (!importPending(app.metadata.annotations)) {
    throw new UnprocessableError(`app ${app.metadata.name} is not a pending import (never imported, or confirmed)`);
  }
}

/** Drops the import marker of a pending App (`deployment:manage` on it); audited `app.import.confirm`. */
export const confirmImport = useCase({
  permission: 'deployment:manage',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, ref: AppRef, app): Promise<ImportConfirmation> => {
    requirePending(app);
    const annotations = { [IMPORT_ANNOTATION]: null, [IMPORT_ORIGIN_ANNOTATION]: null };
    await kubeOf(ctx.services).mergePatch(orgNamespace(ctx.actor.org.slug), app.metadata.name, {
      metadata: { annotations },
    });
    const origin = importOriginOf(app.metadata.annotations);
    const released = await dropOldManagers(ctx, app, oldManagersOf(origin));
    await auditApp(ctx, 'app.import.confirm', app, { from: originName(origin), released });
    return { name: app.metadata.name, namespace: ref.namespace, import: 'confirmed', released };
  },
});

/**
 * Restores the old controller's settings, then deletes the pending App leaving its objects (`deployment:manage` on
 * it; `cluster:manage` when there is something to restore). A restore the cluster refuses stops the undo (the App
 * stays) so nothing is left half-released. Audited `app.import.undo`.
 */
export const undoImport = useCase({
  permission: 'deployment:manage',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, ref: AppRef, app): Promise<ImportConfirmation> => {
    requirePending(app);
    const origin = importOriginOf(app.metadata.annotations);
    const restored = await restoreOld(ctx, origin);
    if (restored.status === 'failed') throw new UnprocessableError(restored.note);
    await kubeOf(ctx.services).delete(orgNamespace(ctx.actor.org.slug), app.metadata.name);
    await auditApp(ctx, 'app.import.undo', app, { from: originName(origin), restored: restored.status });
    return { name: app.metadata.name, namespace: ref.namespace, import: 'undone', restored };
  },
});

/**
 * Removes the old controller's entries from the managedFields of every object the App owns, so svc alone owns the
 * fields whose values were equal (server-side apply shares those) and a field svc stops applying is removed. A JSON
 * patch guarded by the object's resourceVersion: metadata only, no new generation. An object changed meanwhile is
 * left as it is (counted out), never retried blindly.
 */
async function dropOldManagers(ctx: UseCaseContext, app: AppResource, managers: readonly string[]): Promise<number> {
  if (managers.length === 0) return 0;
  const cluster = app.spec.destination.cluster ?? '';
  const { objects } = await ctx.services.destinations.connection(ctx.actor.org.id, cluster);
  let released = 0;
  for (const entry of app.status?.inventory ?? []) {
    const ref = refOf(entry);
    const live = await objects.get(ref);
    const fields = (live?.metadata['managedFields'] as Array<{ manager?: string }> | undefined) ?? [];
    const keep = fields.filter((f) => !managers.includes(f.manager ?? ''));
    // An empty list would leave managedFields untouched (the API server's rule): svc's own entry is always there.
    if (!live || keep.length === fields.length || keep.length === 0) continue;
    const patch = [
      { op: 'test', path: '/metadata/resourceVersion', value: live.metadata.resourceVersion },
      { op: 'replace', path: '/metadata/managedFields', value: keep },
    ];
    try {
      await objects.client.request(await objects.path(ref), {
        method: 'PATCH',
        contentType: 'application/json-patch+json',
        body: patch,
      });
      released += 1;
    } catch (err) {
      ctx.services.logger.warn(
        { err: (err as Error).message, object: `${ref.kind} ${ref.namespace ?? ''}/${ref.name}` },
        'import confirm: the old field manager was not removed',
      );
    }
  }
  return released;
}

/** `Kind namespace/name` of the imported object, for the audit row. */
function originName(origin: ImportOrigin | undefined): string {
  return origin ? `${origin.kind} ${origin.namespace ?? ''}/${origin.name}` : '';
}

/** Puts back what the take-over changed on the old controller's object, where it recorded it. */
async function restoreOld(
  ctx: UseCaseContext,
  origin: ImportOrigin | undefined,
): Promise<NonNullable<ImportConfirmation['restored']>> {
  if (!origin?.restore || origin.cluster === undefined) {
    return { status: 'not_performed', note: 'svc did not change the old controller (nothing to restore)' };
  }
  ctx.require('cluster:manage');
  const { objects } = await ctx.services.destinations.connection(ctx.actor.org.id, origin.cluster);
  const ref = {
    apiVersion: origin.apiVersion,
    kind: origin.kind,
    name: origin.name,
    ...(origin.namespace ? { namespace: origin.namespace } : {}),
  };
  if (!(await objects.get(ref))) {
    return { status: 'not_performed', note: `${originName(origin)} no longer exists: nothing to restore` };
  }
  try {
    await objects.mergePatch(ref, restorePatch(origin.restore));
  } catch (err) {
    return { status: 'failed', note: `${originName(origin)} could not be restored: ${(err as Error).message}` };
  }
  return { status: 'done', note: `${originName(origin)}: its controller's settings are back` };
}
