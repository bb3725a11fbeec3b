/**
 * Following an operation until it ends, by the one operation-outcome rule the server's status `wait` and
 * `svc … --wait` use too (src/core/operation-outcome.ts): the banner says "succeeded" exactly when the CLI would exit
 * 0, and not while the App is still rolling out what the operation applied.
 */
import { useEffect, useRef } from 'react';
import { operationOutcome, recordOf, stepOf } from '../../../../src/core/operation-outcome.ts';
import type { StatusView } from '../../api/types.ts';

export type Progress =
  | {
      state: 'running';
      /** The phase and wave a staged sync is at (`PreSync wave -1`), when it shows one. */
      step?: string;
    }
  | { state: 'done'; phase: 'Succeeded' | 'Failed' | 'Held'; message: string };

const PHASE = { succeeded: 'Succeeded', failed: 'Failed', held: 'Held' } as const;

/** Where the operation `id` stands in `status`. */
export function progressOf(status: StatusView | undefined, id: string): Progress {
  if (!status) return { state: 'running' };
  const outcome = operationOutcome(status, id);
  if (outcome.state === 'running') {
    const record = recordOf(status.operationState);
    const step = record?.id === id && record.phase === 'Running' ? stepOf(status.operationState) : undefined;
    return step ? { state: 'running', step } : { state: 'running' };
  }
  return { state: 'done', phase: PHASE[outcome.state], message: outcome.summary };
}

/** The App's latest operation: the one requested, else the one recorded (its kind once the operator recorded it). */
export function latestOperation(status: StatusView | undefined): { id: string; kind: string } | undefined {
  if (status?.pending_operation) return { id: status.pending_operation, kind: 'operation' };
  const op = recordOf(status?.operationState);
  return op?.id ? { id: op.id, kind: op.kind?.toLowerCase() ?? 'operation' } : undefined;
}

/** The kind of operation `id` as `status` records it (lower case, as the UI's buttons name them), if it does. */
export function recordedKind(status: StatusView | undefined, id: string): string | undefined {
  const op = recordOf(status?.operationState);
  return op?.id === id ? op.kind?.toLowerCase() : undefined;
}

/**
 * Calls `follow` with every operation of the App that starts while the page is open, wherever it was started (the
 * CLI, a push, another tab), and with the one in flight when the page opened (requested or Running): the banner
 * follows those too. An operation that ended before the page opened is not announced again.
 */
export function useOperationsStartedElsewhere(
  status: StatusView | undefined,
  follow: (id: string, kind: string) => void,
): void {
  /**
   * Per App (by name: the page may move to another App), the latest operation when its status was first read (null:
   * none, or one in flight, which is followed).
   */
  const atOpen = useRef<{ app: string; id: string | null } | undefined>(undefined);
  useEffect(() => {
    if (!status) return;
    const latest = latestOperation(status);
    const app = status.name ?? '';
    if (atOpen.current?.app !== app) {
      const inFlight = Boolean(status.pending_operation) || recordOf(status.operationState)?.phase === 'Running';
      atOpen.current = { app, id: inFlight ? null : (latest?.id ?? null) };
    }
    if (latest && latest.id !== atOpen.current.id) follow(latest.id, latest.kind);
  }, [status, follow]);
}
