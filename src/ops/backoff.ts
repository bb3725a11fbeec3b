/**
 * Retry schedule of webhook deliveries: the one backoff rule (src/core/backoff.ts), from `base` doubling up to `max`,
 * up to 20 % earlier at random so receivers that failed together are not retried in lockstep, for `attempts` in all.
 */
import { backoffDelay } from '../core/backoff.ts';

/** Retry tuning (SVC_WEBHOOK_RETRY_BASE, SVC_WEBHOOK_RETRY_MAX, SVC_WEBHOOK_ATTEMPTS). */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  /** Attempts in all (the first one included) before a delivery is given up. */
  attempts: number;
}

/** Production default: 10 s doubling to 1 h, 8 attempts (the last at most about 21 min after the first). */
export const DEFAULT_RETRY: RetryPolicy = { baseMs: 10_000, maxMs: 3_600_000, attempts: 8 };

/** Share of a delay taken off at random. */
const JITTER = 0.2;

/** The delay before retry number `retry` (1 = after the first failed attempt); `random` in [0, 1). */
export function retryDelayMs(policy: RetryPolicy, retry: number, random: number = Math.random()): number {
  return backoffDelay(Math.max(0, retry - 1), { baseMs: policy.baseMs, maxMs: policy.maxMs, jitter: JITTER }, random);
}
