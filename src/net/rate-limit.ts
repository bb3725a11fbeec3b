/**
 * A per-key token bucket: `burst` requests at once, refilled at `perMinute`. Idle keys are forgotten. Shared by the
 * push receiver (per address) and the secret-store routes (per user, per App).
 */
export class RateLimiter {
  readonly #burst: number;
  readonly #perMs: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(options: { burst: number; perMinute: number }) {
    this.#burst = options.burst;
    this.#perMs = options.perMinute / 60_000;
  }

  /** Takes one token for `key`; false when the bucket is empty (the caller answers 429). */
  take(key: string, now = Date.now()): boolean {
    if (this.#buckets.size > 10_000) this.#sweep(now);
    const b = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    b.tokens = Math.min(this.#burst, b.tokens + (now - b.at) * this.#perMs);
    b.at = now;
    this.#buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  #sweep(now: number): void {
    for (const [k, b] of this.#buckets)
      if (b.tokens + (now - b.at) * this.#perMs >= this.#burst) this.#buckets.delete(k);
  }
}
