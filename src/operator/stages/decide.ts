/**
 * Decide: what this reconcile should do, from the App alone, built on the App state module
 * (src/core/app-state.ts). Level-based: the answer depends only on spec and status, never on the event that woke
 * the reconciler. Pure.
 *
 * - The operation acted on: a requested one; a running one (its process died: the next leader runs it again); one
 *   held by a freeze (decided again: held while frozen, run on unfreeze); one held for approval only once approval
 *   is no longer required. A finished operation, or one held for approval, is never re-run.
 * - `spec.freeze` holds every operation and every automated sync; health still reconciles.
 * - Sync (and Deploy, which is a Sync for Git sources) with `requiresApproval` stages the head revision as Held.
 * - Approve applies the staged revision (or `spec.operation.revision` when the API carries one).
 * - Rollback applies `spec.operation.revision`; Restart bumps workload templates and applies nothing.
 * - Without an operation, `automated` syncs when upstream or the rendered set moved (see `needsAutomatedSync`), and
 *   with `selfHeal` re-applies what drifted live (see `mayHeal`).
 * - A sync of an App whose dependencies are not ready (status.blockedBy) is held, and decided again on every
 *   reconcile until they are (`withDependencies`); a restart still runs (it applies nothing new).
 * - A sync while a delivery window blocks (src/core/windows.ts) is held naming the window, unless its request
 *   overrides windows (`windowOverride`), and decided again when the window opens (`withWindows`).
 */
import type { AppResource, BlockedBy, Operation } from '../../core/app-schema.ts';
import {
  APPROVAL_MESSAGE,
  BLOCKED_MESSAGE,
  FROZEN_MESSAGE,
  type HoldReason,
  heldAtOf,
  operationLifecycle,
  sameRequest,
} from '../../core/app-state.ts';
import { APPROVAL_EXPIRED_REASON, expiredApproval } from '../../core/approvals.ts';
import { type WindowVerdict, windowHoldMessage } from '../../core/windows.ts';
import type { OpOutcome } from '../announce.ts';

/** What one reconcile will do. */
export type Intent =
  /** Nothing to run: assess, and sync only when automated and something moved. */
  | { kind: 'observe' }
  /** Apply a revision now (`head` = the branch head resolved in this reconcile). */
  | { kind: 'sync'; revision: 'head' | string; operation: Operation }
  /**
   * Record the operation as Held (frozen, waiting for approval or for dependencies); apply nothing. `revision`: the
   * revision a held Rollback or Approve will apply, kept in the record.
   */
  | { kind: 'hold'; reason: HoldReason; operation: Operation; revision?: string; message?: string }
  /** Bump the pod template of every managed workload. */
  | { kind: 'restart'; operation: Operation }
  /** The operation cannot run (e.g. Approve with nothing staged). */
  | { kind: 'reject'; operation: Operation; message: string };

/** The `operationState.message` of a hold (`message`: a window hold's own, naming the window). */
export function holdMessage(reason: HoldReason, message?: string): string {
  if (message) return message;
  if (reason === 'freeze') return FROZEN_MESSAGE;
  return reason === 'dependencies' ? BLOCKED_MESSAGE : APPROVAL_MESSAGE;
}

/** The operation this reconcile acts on, if any (see the module comment). */
export function operationToRun(app: AppResource): Operation | undefined {
  const life = operationLifecycle(app);
  switch (life.phase) {
    case 'requested':
    case 'running':
      return life.operation;
    case 'held':
      if (life.reason !== 'approval') return life.operation;
      return app.spec.syncPolicy?.requiresApproval === true ? undefined : life.operation;
    default:
      return undefined;
  }
}

/** Decides this reconcile's intent. */
export function decide(app: AppResource): Intent {
  const op = operationToRun(app);
  if (!op) return { kind: 'observe' };
  if (app.spec.freeze === true) return { kind: 'hold', reason: 'freeze', operation: op };
  switch (op.kind) {
    case 'Restart':
      return { kind: 'restart', operation: op };
    case 'Rollback':
      if (!op.revision) return { kind: 'reject', operation: op, message: 'Rollback needs spec.operation.revision' };
      return { kind: 'sync', revision: op.revision, operation: op };
    case 'Approve': {
      const staged = app.status?.operationState;
      const revision = op.revision || (staged?.phase === 'Held' ? staged.revision : undefined);
      if (!revision) return { kind: 'reject', operation: op, message: 'nothing to approve: no sync is held' };
      return { kind: 'sync', revision, operation: op };
    }
    default:
      if (app.spec.syncPolicy?.requiresApproval === true) return { kind: 'hold', reason: 'approval', operation: op };
      // A held rollback pins every sync (a push's, a user's) at its revision until it is released.
      return { kind: 'sync', revision: heldAtOf(app)?.revision ?? 'head', operation: op };
  }
}

/** The intent once the App's dependencies are known: a sync while any is not ready (`blocked`) is held instead. */
export function withDependencies(intent: Intent, blocked: readonly BlockedBy[]): Intent {
  if (intent.kind !== 'sync' || blocked.length === 0) return intent;
  const revision = intent.revision === 'head' ? {} : { revision: intent.revision };
  return { kind: 'hold', reason: 'dependencies', operation: intent.operation, ...revision };
}

/**
 * The intent once the delivery windows are known: a sync while they block (`verdict` closed) is held naming the
 * window, unless its request overrides windows once.
 */
export function withWindows(intent: Intent, verdict: WindowVerdict): Intent {
  if (intent.kind !== 'sync' || verdict.open || intent.operation.windowOverride === true) return intent;
  const revision = intent.revision === 'head' ? {} : { revision: intent.revision };
  return {
    kind: 'hold',
    reason: 'window',
    operation: intent.operation,
    message: windowHoldMessage(verdict),
    ...revision,
  };
}

/**
 * Whether an automated change already stands Held by a delivery window with this message and revision (staged once,
 * not rewritten on every reconcile while the window stays shut).
 */
export function alreadyHeldByWindow(app: AppResource, message: string, revision: string): boolean {
  const s = app.status?.operationState;
  return s?.phase === 'Held' && s.message === message && s.revision === revision;
}

/**
 * Whether an `observe` reconcile of an automated App should sync: the revision it should run (`target`: the head,
 * or the pinned revision, see `pinnedRevision`) moved past the applied one, or the rendered set changed at the same
 * revision (a spec edit). Never while frozen.
 */
export function needsAutomatedSync(app: AppResource, target: string, renderedHash: string): boolean {
  if (app.spec.freeze === true || app.spec.syncPolicy?.automated !== true) return false;
  return app.status?.revision !== target || app.status?.objectHash !== renderedHash;
}

/**
 * The revision an observing reconcile renders and automated sync keeps instead of the head, if any: the one a
 * rollback holds (until released), or the one a rollback that holds nothing applied, until the next periodic
 * resync (contract §3 rule 3: not whatever reconcile comes first, which a change of its live objects wakes at once).
 */
export function pinnedRevision(app: AppResource, clock: { now: number; syncPeriodMs: number }): string | undefined {
  const held = heldAtOf(app);
  if (held) return held.revision;
  const s = app.status?.operationState;
  if (s?.kind !== 'Rollback' || s.phase !== 'Succeeded' || !s.finishedAt || !s.revision) return undefined;
  if (app.status?.revision !== s.revision) return undefined;
  return clock.now < Date.parse(s.finishedAt) + clock.syncPeriodMs ? s.revision : undefined;
}

/**
 * Whether an `observe` reconcile of an up-to-date App re-applies drift (spec.syncPolicy.selfHeal): automated and
 * selfHeal set, not frozen, and not held for approval (with requiresApproval a drift shows OutOfSync and waits for a
 * sync someone approves, as every other change does).
 */
export function mayHeal(app: AppResource): boolean {
  const policy = app.spec.syncPolicy;
  return (
    policy?.automated === true &&
    policy.selfHeal === true &&
    policy.requiresApproval !== true &&
    app.spec.freeze !== true
  );
}

/**
 * With requiresApproval, an automated change is staged as Held once per revision (not re-staged every reconcile),
 * nor staged again once its hold expired (a new revision, or a sync someone requests, is held anew).
 */
export function alreadyStaged(app: AppResource, head: string): boolean {
  const s = app.status?.operationState;
  if (s?.revision !== head) return false;
  if (s.phase === 'Failed') return s.reason === APPROVAL_EXPIRED_REASON;
  return s.phase === 'Held' && s.message === APPROVAL_MESSAGE;
}

/**
 * The outcome that drops the sync of `app` held for approval once its App policy's expiry passed at `now`: the
 * operation ends Failed, reason ApprovalExpired, at the revision it held (so approvals of it no longer count and
 * automated sync does not stage that revision again). Undefined while nothing expired.
 */
export function approvalExpiry(app: AppResource, now: number): OpOutcome | undefined {
  const expired = expiredApproval(app, now);
  if (!expired) return undefined;
  const { held, at } = expired;
  const expiry = app.spec.syncPolicy?.approval?.expiry ?? '';
  const operation: Operation = {
    kind: held.kind,
    initiatedAt: held.initiatedAt,
    ...(held.id ? { id: held.id } : {}),
    ...(held.triggeredBy ? { triggeredBy: held.triggeredBy } : {}),
  } as Operation;
  return {
    operation,
    phase: 'Failed',
    ...(held.revision ? { revision: held.revision } : {}),
    message: `approval expired at ${at} (expiry ${expiry}): the held sync was dropped; request a new sync`,
    reason: APPROVAL_EXPIRED_REASON,
  };
}

/**
 * Whether a sync of `app` follows the head, so a newer revision may supersede it while it waits on health: the App
 * is automated and the sync is an automated one (`observe`) or a requested Sync of the head, never a Rollback or an
 * Approve of a chosen revision.
 */
export function followsHead(app: AppResource, intent: Intent): boolean {
  if (app.spec.syncPolicy?.automated !== true) return false;
  return intent.kind === 'observe' || (intent.kind === 'sync' && intent.revision === 'head');
}

/**
 * A sync request on `app` newer than the one being run (`own`, none for an automated sync): a push event's or a
 * caller's Sync or Deploy not picked up yet. Answers how to name it, else undefined.
 */
export function newerSyncRequest(app: AppResource, own: Operation | undefined): string | undefined {
  const life = operationLifecycle(app);
  if (life.phase !== 'requested' || !['Sync', 'Deploy'].includes(life.operation.kind)) return undefined;
  const op = life.operation;
  if (own && sameRequest(own, { kind: op.kind, initiatedAt: op.initiatedAt, id: op.id, phase: 'Running' })) {
    return undefined;
  }
  return `a newer sync request${op.id ? ` (${op.id})` : ''}`;
}
