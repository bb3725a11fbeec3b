/**
 * Limits of the calls svc makes to secret stores (contract §8: "rate-limited per user; numeric thresholds not
 * shown"; svc's thresholds are these, documented in docs/api.md). Token buckets per server replica.
 */

/** Timeouts and rate limits of secret-store calls. */
export interface SecretStoreTuning {
  /** Timeout of each call to a store (a test makes two to four). */
  timeoutMs: number;
  /** Tests (both test routes together) per user. */
  test: { burst: number; perMinute: number };
  /** Fetches at render time (decryption keys, env.store values) per App. */
  fetch: { burst: number; perMinute: number };
}

/** The production values. */
export const DEFAULT_SECRET_STORE_TUNING: SecretStoreTuning = {
  timeoutMs: 10_000,
  test: { burst: 10, perMinute: 20 },
  fetch: { burst: 30, perMinute: 120 },
};
