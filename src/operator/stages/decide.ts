/**
 * Decide: what this reconcile should do, from the App alone. Level-based: the answer depends only on spec and
 * status, never on the event that woke the reconciler. Pure.
 *
 * - A `spec.operation` is pending until `status.operationState` records its `initiatedAt`/`id` with a final phase
 *   (Succeeded or Failed), or Held for approval. An operation held by a freeze stays pending and runs on unfreeze.
 * - `spec.freeze` holds every operation and every automated sync; health still reconciles.
 * - Sync (and Deploy, which is a Sync for Git sources) with `requiresApproval` stages the head revision as Held.
 * - Approve applies the staged revision (or `spec.operation.revision` when the API carries one).
 * - Rollback applies `spec.operation.revision`; Restart bumps workload templates and applies nothing.
 * - Without an operation, `automated` syncs when upstream or the rendered set moved (see `needsAutomatedSync`).
 */
import type { AppResource, Operation, OperationState } from '../../core/app-schema.ts';

/** Message prefix on an operationState held by a freeze (as opposed to held for approval). */
export const FROZEN_MESSAGE = 'held: the App is frozen (spec.freeze)';
/** Message on an operationState held for approval. */
export const APPROVAL_MESSAGE = 'held: waiting for approval (syncPolicy.requiresApproval)';

/** What one reconcile will do. */
export type Intent =
  /** Nothing requested: assess, and sync only when automated and something moved. */
  | { kind: 'observe' }
  /** Apply a revision now (`head` = the branch head resolved in this reconcile). */
  | { kind: 'sync'; revision: 'head' | string; operation: Operation }
  /** Record the operation as Held (frozen or waiting for approval); apply nothing. */
  | { kind: 'hold'; operation: Operation | undefined; message: string }
  /** Bump the pod template of every managed workload. */
  | { kind: 'restart'; operation: Operation }
  /** The operation cannot run (e.g. Approve with nothing staged). */
  | { kind: 'reject'; operation: Operation; message: string };

/** True when `state` records `op` (same request). */
export function sameRequest(op: Operation, state: OperationState | undefined): boolean {
  return (
    state !== undefined &&
    state.initiatedAt === op.initiatedAt &&
    (state.id ?? '') === (op.id ?? '') &&
    state.kind === op.kind
  );
}

/** The operation still to be acted on, if any. */
export function pendingOperation(app: AppResource): Operation | undefined {
  const op = app.spec.operation;
  if (!op) return undefined;
  const state = app.status?.operationState;
  if (!sameRequest(op, state)) return op;
  if (state?.phase === 'Running') return op;
  if (state?.phase === 'Held' && state.message === FROZEN_MESSAGE) return op;
  return undefined;
}

/** Decides this reconcile's intent. */
export function decide(app: AppResource): Intent {
  const op = pendingOperation(app);
  const frozen = app.spec.freeze === true;
  const approval = app.spec.syncPolicy?.requiresApproval === true;
  if (!op) return { kind: 'observe' };
  if (frozen) return { kind: 'hold', operation: op, message: FROZEN_MESSAGE };
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
      if (approval) return { kind: 'hold', operation: op, message: APPROVAL_MESSAGE };
      return { kind: 'sync', revision: 'head', operation: op };
  }
}

/**
 * Whether an `observe` reconcile of an automated App should sync: upstream moved past the applied revision, or
 * the rendered set changed at the same revision (a spec edit). Never while frozen.
 */
export function needsAutomatedSync(app: AppResource, head: string, renderedHash: string): boolean {
  if (app.spec.freeze === true || app.spec.syncPolicy?.automated !== true) return false;
  return app.status?.revision !== head || app.status?.objectHash !== renderedHash;
}

/**
 * With requiresApproval, an automated change is staged as Held once per revision (not re-staged every reconcile).
 */
export function alreadyStaged(app: AppResource, head: string): boolean {
  const s = app.status?.operationState;
  return s?.phase === 'Held' && s.message === APPROVAL_MESSAGE && s.revision === head;
}
