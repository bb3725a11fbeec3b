/**
 * Whether an operation the client requested has ended, read from the App's status view (contract §2.2) by the one
 * operation-outcome rule the server's status `wait` and the web UI use too (src/core/operation-outcome.ts): `--wait`
 * exits 0 when it succeeded, 1 when it failed or is held.
 */
import { hasEnded, type OperationRecord, operationOutcome } from '../../core/operation-outcome.ts';

export { shortRevision } from '../../core/operation-outcome.ts';

/** The status view as GET /apps/{ns}/{name}/status answers it. */
export interface StatusView {
  name: string;
  sync_status: string;
  health: string;
  health_reason?: string;
  revision: string;
  observed?: string;
  frozen?: boolean;
  operationState: OperationRecord | null;
  pending_operation: string | null;
}

export type Outcome = { done: false; state: string } | { done: true; ok: boolean; summary: string };

/** What the status view says about operation `operationId`. */
export function outcomeOf(view: StatusView, operationId: string): Outcome {
  const outcome = operationOutcome(view, operationId);
  if (!hasEnded(outcome)) return { done: false, state: outcome.summary };
  return { done: true, ok: outcome.state === 'succeeded', summary: outcome.summary };
}
