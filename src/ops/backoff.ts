/**
 * Retry schedule of webhook deliveries: exponential backoff with jitter. The n-th retry waits
 * `min(max, base · 2^(n-1))`, scaled by a random factor in [0.8, 1.2) so receivers that failed together are not
 * retried in lockstep.
 */

/** Retry tuning (SVC_WEBHOOK_RETRY_BASE, SVC_WEBHOOK_RETRY_MAX, SVC_WEBHOOK_ATTEMPTS). */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  /** Attempts in all (the first one included) before a delivery is given up. */
  attempts: number;
}

/** Production default: 10 s doubling to 1 h, 8 attempts (the last about 21 min after the first; 17 at the earliest). */
export const DEFAULT_RETRY: RetryPolicy = { baseMs: 10_000, maxMs: 3_600_000, attempts: 8 };

/** The delay before retry number `retry` (1 = after the first failed attempt); `random` in [0, 1). */
export function retryDelayMs(policy: RetryPolicy, retry: number, random: number = Math.random()): number {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(exponential * (0.8 + 0.4 * random));
}
