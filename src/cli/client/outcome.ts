/**
 * Whether an operation the client requested has ended, read from the App's status view (contract §2.2): pure, so
 * the rule is unit-tested. The operation is ours once `operationState.id` carries its id; it ends well when it
 * Succeeded and the App is Synced and Healthy, badly when it Failed, is Held, or the App turned Degraded or Unknown.
 */

/** The status view as GET /apps/{ns}/{name}/status answers it. */
export interface StatusView {
  name: string;
  sync_status: string;
  health: string;
  health_reason?: string;
  revision: string;
  observed?: string;
  frozen?: boolean;
  operationState: {
    kind?: string;
    id?: string;
    phase?: string;
    message?: string;
    revision?: string;
  } | null;
  pending_operation: string | null;
}

export type Outcome = { done: false; state: string } | { done: true; ok: boolean; summary: string };

/** `revision` shortened for display (a Git SHA to 12 characters; digests and tags as they are). */
export function shortRevision(revision: string | undefined): string {
  if (!revision) return '';
  return /^[0-9a-f]{40}$/.test(revision) ? revision.slice(0, 12) : revision;
}

/** What the status view says about operation `operationId`. */
export function outcomeOf(view: StatusView, operationId: string): Outcome {
  const where = `sync ${view.sync_status}, health ${view.health}`;
  const op = view.operationState;
  if (view.pending_operation === operationId || !op || op.id !== operationId) {
    return { done: false, state: `waiting for the operator to pick the operation up (${where})` };
  }
  if (op.phase === 'Running') return { done: false, state: `${op.kind ?? 'operation'} running (${where})` };
  if (op.phase === 'Failed')
    return { done: true, ok: false, summary: `${op.kind ?? 'operation'} failed: ${op.message ?? ''}`.trim() };
  if (op.phase === 'Held') return { done: true, ok: false, summary: `held: ${op.message ?? 'waiting for approval'}` };
  if (view.health === 'Degraded') {
    return { done: true, ok: false, summary: `Degraded${view.health_reason ? `: ${view.health_reason}` : ''}` };
  }
  if (view.sync_status === 'Unknown' || view.health === 'Unknown') {
    return { done: true, ok: false, summary: `${where} after the operation` };
  }
  if (view.sync_status === 'Synced' && view.health === 'Healthy') {
    return { done: true, ok: true, summary: `Synced and Healthy at ${shortRevision(view.revision)}` };
  }
  return { done: false, state: `${op.kind ?? 'operation'} ${op.phase ?? 'done'}, ${where}` };
}
