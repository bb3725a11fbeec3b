/**
 * Following an operation until it ends, by the one operation-outcome rule the server's status `wait` and
 * `svc … --wait` use too (src/core/operation-outcome.ts): the banner says "succeeded" exactly when the CLI would exit
 * 0, and not while the App is still rolling out what the operation applied.
 */
import { operationOutcome } from '../../../../src/core/operation-outcome.ts';
import type { StatusView } from '../../api/types.ts';

export type Progress =
  | { state: 'running' }
  | { state: 'done'; phase: 'Succeeded' | 'Failed' | 'Held'; message: string };

const PHASE = { succeeded: 'Succeeded', failed: 'Failed', held: 'Held' } as const;

/** Where the operation `id` stands in `status`. */
export function progressOf(status: StatusView | undefined, id: string): Progress {
  if (!status) return { state: 'running' };
  const outcome = operationOutcome(status, id);
  if (outcome.state === 'running') return { state: 'running' };
  return { state: 'done', phase: PHASE[outcome.state], message: outcome.summary };
}

/**
 * The operation `status` shows in flight (requested, or picked up and Running), wherever it was started (this page,
 * the CLI, a push): the banner follows it as well. Its kind is known once the operator picked it up.
 */
export function inFlight(status: StatusView | undefined): { id: string; kind: string } | undefined {
  if (status?.pending_operation) return { id: status.pending_operation, kind: 'operation' };
  const op = status?.operationState;
  return op?.id && op.phase === 'Running' ? { id: op.id, kind: op.kind } : undefined;
}
