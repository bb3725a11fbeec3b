/**
 * The operation use-cases of the API (contract §4.2 rules 5–11): sync, restart, deploy, rollback, approve, promote
 * and scale. Each writes `spec.operation` through the App state module (one pending operation per App: 409 while
 * another is requested, running or held; Approve only while a sync is held for approval) and audits it (contract
 * §6.4). Every answer carries the new operation's id.
 */
import type { AppResource } from '../../core/app-schema.ts';
import {
  HOLD_ANNOTATION,
  heldAtOf,
  heldRevision,
  holdAnnotation,
  inHistory,
  operationLifecycle,
  revisionTagOf,
  TERMINATE_ANNOTATION,
  terminationId,
} from '../../core/app-state.ts';
import { heldForApproval } from '../../core/approvals.ts';
import { ConflictError, NotFoundError, UnprocessableError, UpstreamError } from '../../core/errors.ts';
import { isDigest } from '../../core/image-ref.ts';
import { orgNamespace } from '../../core/names.ts';
import { admitByWindows } from '../delivery-windows/use-cases.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';
import { appScope, auditApp, findApp, kubeOf, locateApp, requestOperation } from './access.ts';
import { approveHeld } from './approvals.ts';
import type { AppRef } from './scope.ts';

/** The answer of an operation use-case (routes present it as is). */
export interface OperationAnswer {
  message: string;
  operation_id: string;
  name?: string;
  tag?: string;
  revision?: string;
  replicas?: number;
  from?: string;
  to?: string;
  digest?: string;
}

async function simple(ctx: UseCaseContext, app: AppResource, kind: 'Sync' | 'Restart', action: string) {
  const id = await requestOperation(ctx, app, { kind });
  await auditApp(ctx, action, app, { operation_id: id });
  return { message: `${kind} requested`, name: app.metadata.name, operation_id: id };
}

/** A caller's request that applies something: it may override the delivery windows once (`override_windows`). */
export type Overridable = { override_windows?: boolean | undefined };

/**
 * Passes the delivery windows (409 naming the blocking window, unless overridden by a `deployment:manage` caller):
 * the operation's override flag, and what the audit records of an override.
 */
async function windowsAdmit(ctx: UseCaseContext, app: AppResource, input: Overridable) {
  const overridden = await admitByWindows(ctx, app, input.override_windows === true);
  if (!overridden) return { request: {}, audit: {} };
  return {
    request: { windowOverride: true },
    audit: { window_override: true, window: overridden.name, window_source: overridden.source },
  };
}

/**
 * Sync: asserts desired state at branch head; audited `app.sync` (with `window_override` when it overrode a
 * delivery window).
 */
export const syncApp = useCase({
  permission: 'deployment:sync',
  where: { target: appScope },
  locate: (ctx, input: AppRef & Overridable) => locateApp(ctx, input),
  act: async (ctx, input, app): Promise<OperationAnswer> => {
    const windows = await windowsAdmit(ctx, app, input);
    const id = await requestOperation(ctx, app, { kind: 'Sync', ...windows.request });
    await auditApp(ctx, 'app.sync', app, { operation_id: id, ...windows.audit });
    const also = windows.request.windowOverride ? ' (delivery windows overridden once)' : '';
    return { message: `Sync requested${also}`, name: app.metadata.name, operation_id: id };
  },
});

/** Restart: bumps every managed workload's template; audited `app.restart`. */
export const restartApp = useCase({
  permission: 'deployment:sync',
  where: { target: appScope },
  locate: locateApp,
  act: (ctx, _ref: AppRef, app): Promise<OperationAnswer> => simple(ctx, app, 'Restart', 'app.restart'),
});

/**
 * Deploy: re-resolves the source live. A `tag` (or digest) is for image-source Apps (it also sets
 * `spec.source.image.tag`; 409 on others); audited `app.deploy`.
 */
export const deployApp = useCase({
  permission: 'deployment:sync',
  where: { target: appScope },
  locate: (ctx, input: AppRef & Overridable & { tag?: string | undefined }) => locateApp(ctx, input),
  act: async (ctx, input, app): Promise<OperationAnswer> => {
    const { tag } = input;
    const image = app.spec.source.type === 'Image' ? app.spec.source.image : undefined;
    if (tag !== undefined && !image) throw new ConflictError('deploy with a tag applies to image-source apps only');
    const windows = await windowsAdmit(ctx, app, input);
    const specPatch = tag !== undefined ? { source: { image: { tag } } } : undefined;
    const request = { kind: 'Deploy' as const, ...windows.request, ...(specPatch ? { specPatch } : {}) };
    const id = await requestOperation(ctx, app, request);
    const effectiveTag = tag ?? image?.tag ?? '';
    await auditApp(ctx, 'app.deploy', app, { operation_id: id, tag: effectiveTag, ...windows.audit });
    return { message: 'Deploy requested', name: app.metadata.name, tag: effectiveTag, operation_id: id };
  },
});

/**
 * What a rollback is asked: the revision, (a remediation of an automated App) whether to pause automation, and
 * whether to hold the App at that revision until released (with a reason).
 */
export type RollbackInput = AppRef &
  Overridable & {
    revision: string;
    pauseAutomated?: boolean;
    hold?: boolean | undefined;
    reason?: string | undefined;
  };

/**
 * Rollback to a revision from the App's history (`status.revision` or `status.previousRevisions`; 422 otherwise).
 * For image Apps the tag that digest came from is written back to `spec.source.image.tag`, so resyncs hold the
 * rolled-back image (contract §3 rule 3); audited `app.rollback`. With `pauseAutomated` the same patch turns
 * `syncPolicy.automated` off, so automated sync does not apply the branch head again at once; changing the sync
 * policy needs `deployment:manage` as well.
 */
export const rollbackApp = useCase({
  permission: 'deployment:sync',
  where: { target: appScope },
  locate: (ctx, input: RollbackInput) => locateApp(ctx, input),
  act: async (ctx, input, app): Promise<OperationAnswer> => {
    const { revision } = input;
    const pause = input.pauseAutomated === true && app.spec.syncPolicy?.automated === true;
    if (pause) ctx.require('deployment:manage', appScope(app));
    if (!inHistory(app, revision)) throw new UnprocessableError(`revision ${revision} is not in the app's history`);
    const heldAt = heldAtOf(app);
    if (heldAt && input.hold !== true) {
      throw new ConflictError(
        `app ${app.metadata.name} is held at ${heldAt.revision}: release it, or roll back with hold`,
      );
    }
    const windows = await windowsAdmit(ctx, app, input);
    const tag = app.spec.source.type === 'Image' ? tagOf(app, revision) : undefined;
    const specPatch = {
      ...(tag !== undefined ? { source: { image: { tag } } } : {}),
      ...(pause ? { syncPolicy: { automated: false } } : {}),
    };
    const id = await requestOperation(ctx, app, {
      kind: 'Rollback',
      revision,
      ...windows.request,
      ...(Object.keys(specPatch).length > 0 ? { specPatch } : {}),
    });
    const held = input.hold === true ? await hold(ctx, app, revision, input.reason ?? '') : undefined;
    await auditApp(ctx, 'app.rollback', app, {
      operation_id: id,
      revision,
      ...(tag ? { tag } : {}),
      ...(pause ? { automated_paused: true } : {}),
      ...(held ? { hold: true, reason: held.reason } : {}),
      ...windows.audit,
    });
    const message = held ? 'Rollback requested; held until released' : 'Rollback requested';
    return { message, name: app.metadata.name, revision, operation_id: id };
  },
});

/** Marks the App held at `revision` (HOLD_ANNOTATION); the operator mirrors it into status.heldAt. */
async function hold(ctx: UseCaseContext, app: AppResource, revision: string, reason: string) {
  const user = ctx.actor.caller.user;
  const held = { revision, by: user.email || user.id, reason, at: new Date().toISOString() };
  const patch = { metadata: { annotations: { [HOLD_ANNOTATION]: holdAnnotation(held) } } };
  await kubeOf(ctx.services).mergePatch(orgNamespace(ctx.actor.org.slug), app.metadata.name, patch);
  return held;
}

/**
 * Release: ends a held rollback (removes HOLD_ANNOTATION; 409 when nothing is held), so automated sync and
 * requested syncs move the App to the head again. Audited `app.release` with the revision that was held.
 */
export const releaseApp = useCase({
  permission: 'deployment:sync',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, _ref: AppRef, app): Promise<{ message: string; name: string; revision: string }> => {
    const held = heldAtOf(app);
    if (!held && app.metadata.annotations?.[HOLD_ANNOTATION] === undefined) {
      throw new ConflictError(`app ${app.metadata.name} is not held`);
    }
    const patch = { metadata: { annotations: { [HOLD_ANNOTATION]: null } } };
    await kubeOf(ctx.services).mergePatch(orgNamespace(ctx.actor.org.slug), app.metadata.name, patch);
    const revision = held?.revision ?? '';
    await auditApp(ctx, 'app.release', app, { revision });
    return { message: 'Released', name: app.metadata.name, revision };
  },
});

/**
 * Terminate: ends the operation that is requested or running (409 otherwise) by marking it on the App
 * (TERMINATE_ANNOTATION, its id); the operator ends it Failed, reason Terminated, stopping its running hooks.
 * Audited `app.terminate`; the answer carries the terminated operation's id.
 */
export const terminateApp = useCase({
  permission: 'deployment:sync',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, _ref: AppRef, app): Promise<OperationAnswer> => {
    const life = operationLifecycle(app);
    if (life.phase !== 'requested' && life.phase !== 'running') {
      throw new ConflictError(`app ${app.metadata.name} has no operation requested or running`);
    }
    const id = terminationId(life.operation);
    const patch = { metadata: { annotations: { [TERMINATE_ANNOTATION]: id } } };
    await kubeOf(ctx.services).mergePatch(orgNamespace(ctx.actor.org.slug), app.metadata.name, patch);
    await auditApp(ctx, 'app.terminate', app, { operation_id: id, kind: life.operation.kind });
    return { message: `${life.operation.kind} terminate requested`, name: app.metadata.name, operation_id: id };
  },
});

/**
 * Approve: one approval of a sync held for approval, under the approval policy in force (./approvals.ts: 403 for
 * the requester or someone the policy does not name); the last approval needed releases it, carrying the staged
 * revision. 409 when none is held; audited `app.approve`.
 */
export const approveApp = useCase({
  permission: 'deployment:sync',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, _ref: AppRef, app): Promise<OperationAnswer> => {
    const held = heldForApproval(app);
    if (held) return approveHeld(ctx, app, held);
    // Nothing held: writeOperation answers 409 (no sync held for approval, or another operation pending).
    const id = await requestOperation(ctx, app, { kind: 'Approve' });
    const revision = heldRevision(app) ?? '';
    await auditApp(ctx, 'app.approve', app, { operation_id: id, revision });
    return { message: 'Approve requested', name: app.metadata.name, revision, operation_id: id };
  },
});

/**
 * Promote (`deployment:read` on this App, `deployment:sync` on app `to`): copies this image App's applied digest
 * onto `to` as a Deploy pinned to that digest, with the tag it came from written to `to`'s spec. 409 unless both
 * are image Apps and this one has an applied digest ("scope mismatch"); 502 when `to`'s registry lacks the digest
 * (or cannot be asked); audited `app.promote` on the target.
 */
export const promoteApp = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: (ctx, input: AppRef & { to: string }) => locateApp(ctx, input),
  act: async (ctx, input, from): Promise<OperationAnswer> => {
    const target = await findApp(ctx, input.to);
    if (!target) throw new NotFoundError(`target app ${input.to} not found`);
    ctx.require('deployment:sync', appScope(target));
    const image = promotableImage(from, target);
    const digest = from.status?.revision ?? '';
    if (!isDigest(digest)) {
      throw new ConflictError(`app ${from.metadata.name} has no applied image digest to promote`);
    }
    const images = ctx.services.images;
    const location = await images.locate(ctx.actor.org.id, image);
    if (!(await images.client.has(location.endpoint, location.path, digest))) {
      throw new UpstreamError(`digest ${digest} is not present in ${location.name}`);
    }
    const tag = tagOf(from, digest) ?? from.spec.source.image?.tag ?? image.tag;
    const id = await requestOperation(ctx, target, {
      kind: 'Deploy',
      revision: digest,
      specPatch: { source: { image: { tag } } },
    });
    await auditApp(ctx, 'app.promote', target, { operation_id: id, from: from.metadata.name, digest, tag });
    return {
      message: 'Promote requested',
      from: from.metadata.name,
      to: target.metadata.name,
      digest,
      tag,
      operation_id: id,
    };
  },
});

/**
 * Scale: sets `spec.source.image.workload.replicas` with a Sync. 409 on non-image Apps and while autoscaling is
 * enabled; audited `app.scale`.
 */
export const scaleApp = useCase({
  permission: 'deployment:manage',
  where: { target: appScope },
  locate: (ctx, input: AppRef & { replicas: number }) => locateApp(ctx, input),
  act: async (ctx, input, app): Promise<OperationAnswer> => {
    const image = app.spec.source.type === 'Image' ? app.spec.source.image : undefined;
    if (!image) throw new ConflictError('scale applies to image-source apps only');
    if (image.autoscaling?.enabled) {
      throw new ConflictError(`app ${app.metadata.name} has autoscaling enabled; scale is refused`);
    }
    const id = await requestOperation(ctx, app, {
      kind: 'Sync',
      specPatch: { source: { image: { workload: { replicas: input.replicas } } } },
    });
    await auditApp(ctx, 'app.scale', app, { operation_id: id, replicas: input.replicas });
    return { message: 'Scale requested', name: app.metadata.name, replicas: input.replicas, operation_id: id };
  },
});

/** The tag an applied image digest came from (`status.revisionTags`), if recorded. */
export const tagOf = revisionTagOf;

/** The target's image source when promote may copy `from` onto it; ConflictError (scope mismatch) otherwise. */
export function promotableImage(from: AppResource, target: AppResource) {
  const image = target.spec.source.type === 'Image' ? target.spec.source.image : undefined;
  if (from.spec.source.type !== 'Image' || !image) {
    throw new ConflictError('promote needs image-source apps on both sides (scope mismatch)');
  }
  if (from.metadata.name === target.metadata.name) throw new ConflictError('cannot promote an app onto itself');
  return image;
}
