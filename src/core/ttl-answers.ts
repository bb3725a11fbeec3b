/**
 * Answers by key, each reused for `ttlMs` (the operator's per-org views of what the server keeps: custom health
 * checks, delivery windows). One question per key at a time; while the source cannot answer, the last answer is
 * kept and the source is asked again after the same period (not on every call); a key never answered has `empty`.
 */

interface Held<T> {
  at: number;
  value: T;
  pending?: Promise<T> | undefined;
}

/** A keyed, briefly kept cache of a source's answers. */
export class TtlAnswers<T> {
  readonly #ttlMs: number;
  readonly #empty: T;
  readonly #held = new Map<string, Held<T>>();

  constructor(ttlMs: number, empty: T) {
    this.#ttlMs = ttlMs;
    this.#empty = empty;
  }

  /** The answer for `key`: kept if younger than the TTL, else asked of `ask` (once for concurrent callers); never rejects. */
  get(key: string, ask: () => Promise<T>): Promise<T> {
    const held = this.#held.get(key);
    if (held && Date.now() - held.at < this.#ttlMs) return Promise.resolve(held.value);
    if (held?.pending) return held.pending;
    const entry: Held<T> = held ?? { at: 0, value: this.#empty };
    entry.pending = ask()
      .then((value) => {
        entry.value = value;
        entry.at = Date.now();
        return value;
      })
      .catch(() => {
        // Asked again after the same period: a source that is down is not asked on every call.
        entry.at = Date.now();
        return entry.value;
      })
      .finally(() => {
        entry.pending = undefined;
      });
    this.#held.set(key, entry);
    return entry.pending;
  }

  /** The last answer for `key` without asking (`empty` when never answered). */
  known(key: string): T {
    return this.#held.get(key)?.value ?? this.#empty;
  }
}
