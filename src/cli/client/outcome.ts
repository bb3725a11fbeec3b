/**
 * Whether an operation the client requested has ended, read from the App's status view (contract §2.2) by the one
 * operation-outcome rule the server's status `wait` and the web UI use too (src/core/operation-outcome.ts): `--wait`
 * exits 0 when it succeeded, 1 when it failed or is held.
 */
import type { StatusView } from '../../client/answers.ts';
import { hasEnded, operationOutcome } from '../../core/operation-outcome.ts';

export type { StatusView } from '../../client/answers.ts';
export { shortRevision } from '../../core/operation-outcome.ts';

export type Outcome = { done: false; state: string } | { done: true; ok: boolean; summary: string };

/** What the status view says about operation `operationId`. */
export function outcomeOf(view: StatusView, operationId: string): Outcome {
  const outcome = operationOutcome(view, operationId);
  if (!hasEnded(outcome)) return { done: false, state: outcome.summary };
  return { done: true, ok: outcome.state === 'succeeded', summary: outcome.summary };
}
