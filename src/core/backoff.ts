/**
 * Exponential backoff with jitter, the one rule for retrying: the operator's per-App requeues after transient
 * failures (src/operator/queue.ts), outbound webhook deliveries (src/webhooks), App notifications (src/operator), the
 * operator's audit relay, the informers' relists after a failed list or watch (src/kube), the incident detector's
 * retries, the wait for a CRD just applied (src/engine/apply.ts) and the CLI's reconnects to the event stream. Pure.
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

/** A bounded retry schedule: from `baseMs` doubling up to `maxMs`, for `attempts` in all (the first one included). */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  /** Attempts in all (the first one included) before the work is given up. */
  attempts: number;
}

/**
 * Webhook deliveries' default (SVC_WEBHOOK_RETRY_BASE, SVC_WEBHOOK_RETRY_MAX, SVC_WEBHOOK_ATTEMPTS): 10 s doubling to
 * 1 h, 8 attempts (the last at most about 21 min after the first).
 */
export const DEFAULT_RETRY: RetryPolicy = { baseMs: 10_000, maxMs: 3_600_000, attempts: 8 };

/** Share of a retry delay taken off at random, so receivers that failed together are not retried in lockstep. */
const RETRY_JITTER = 0.2;

/** The delay before retry number `retry` (1 = after the first failed attempt) of `policy`; `random` in [0, 1). */
export function retryDelayMs(policy: RetryPolicy, retry: number, random: number = Math.random()): number {
  const jittered = { baseMs: policy.baseMs, maxMs: policy.maxMs, jitter: RETRY_JITTER };
  return backoffDelay(Math.max(0, retry - 1), jittered, random);
}
