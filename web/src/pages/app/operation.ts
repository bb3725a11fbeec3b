/**
 * Following an operation until it ends: the operation id the API answered, then the App's status view until its
 * operationState carries that id in a terminal phase (Succeeded, Failed, Held).
 */
import type { StatusView } from '../../api/types.ts';

export type Progress = { state: 'running' } | { state: 'done'; phase: string; message: string };

const TERMINAL = new Set(['Succeeded', 'Failed', 'Held']);

/** Where the operation `id` stands in `status`. */
export function progressOf(status: StatusView | undefined, id: string): Progress {
  const op = status?.operationState as { id?: string; phase?: string; message?: string } | null | undefined;
  if (op?.id === id && op.phase && TERMINAL.has(op.phase)) {
    return { state: 'done', phase: op.phase, message: op.message ?? '' };
  }
  return { state: 'running' };
}
