/**
 * Exponential backoff with jitter, the one rule for retrying: the operator's per-App requeues after transient
 * failures (src/operator/queue.ts), outbound webhook deliveries (src/ops) and App notifications (src/operator).
 * Pure.
 */

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** Share of the delay taken off at random (0.2: between 80 % and 100 % of it), so failing keys spread out. */
  jitter: number;
}

/** The delay before retry number `failures + 1` (0 = first retry). `random` is in [0, 1). */
export function backoffDelay(failures: number, policy: BackoffPolicy, random: number = Math.random()): number {
  const full = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(failures, 30));
  return Math.round(full * (1 - policy.jitter * random));
}
