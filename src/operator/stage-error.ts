/**
 * Typed reconcile failures: every stage of the reconciler fails with a StageError naming the stage and what to do
 * next (the cause's retry hint: `retry` transient → per-App backoff; `wait` → requeue after the error period;
 * `stall` → the spec cannot work, the App is Stalled until its generation changes). The status stage turns the
 * stage into the condition reason (`SourceFailed`, `RenderFailed`, …).
 */
import { describeError, type RetryHint, SvcError } from '../core/errors.ts';
import { hintOf } from '../kube/index.ts';
import { FencedError } from './fence.ts';

/** The stages that can fail, in reconcile order. */
export const STAGES = [
  'dependencies',
  'destination',
  'source',
  'render',
  'inventory',
  'operation',
  'hook',
  'apply',
  'prune',
  'health',
] as const;
export type Stage = (typeof STAGES)[number];

/**
 * Stages that only read the cluster's state (the inventory's one-time migration LIST): their failure is never the
 * spec's fault, so it is retried (backoff or the error period) and never stalls the App.
 */
const NEVER_STALLS: ReadonlySet<Stage> = new Set(['inventory']);

/** A failed stage: `stage`, the cause (with its chain in `message`) and the hint taken from the cause. */
export class StageError extends SvcError {
  override readonly code = 'reconcile_failed';
  readonly stage: Stage;

  constructor(stage: Stage, cause: unknown, hint: RetryHint = hintOf(cause)) {
    super(describeError(cause), { cause, retry: hint === 'stall' && NEVER_STALLS.has(stage) ? 'wait' : hint });
    this.stage = stage;
  }
}

/**
 * Runs one stage: its failure becomes a StageError of `stage` (a StageError from deeper keeps its own stage; a
 * FencedError passes through untouched, it ends the reconcile without a status write).
 */
export async function inStage<T>(stage: Stage, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof StageError || err instanceof FencedError) throw err;
    throw new StageError(stage, err);
  }
}
