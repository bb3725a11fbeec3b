/**
 * A keyed, single-flight cache of upstream listings (a chart repository's index, a registry's tags) with the
 * freshness rule of the Git repository cache (src/git FetchOptions): concurrent callers share one load, a load
 * younger than `maxAgeMs` serves callers that accept it, and one that started after `startedAfter` serves a push's
 * operations. Failures are not kept. At most `max` keys are kept (the least recently loaded goes first).
 */
import type { FetchOptions } from '../../../git/index.ts';

interface Entry<T> {
  startedAt: number;
  value: Promise<T>;
  done: boolean;
}

export class FreshCache<T> {
  readonly #max: number;
  readonly #entries = new Map<string, Entry<T>>();
  /** How many loads ran, by key (tests and the bench read it). */
  readonly loads = new Map<string, number>();

  constructor(max = 512) {
    this.#max = max;
  }

  /** The value of `key`, loaded by `load` unless a running or fresh enough load serves (see the module comment). */
  get(key: string, options: FetchOptions, load: () => Promise<T>): Promise<T> {
    const held = this.#entries.get(key);
    if (held && this.#serves(held, options)) return held.value;
    const entry: Entry<T> = { startedAt: Date.now(), value: load(), done: false };
    this.loads.set(key, (this.loads.get(key) ?? 0) + 1);
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    entry.value.then(
      () => {
        entry.done = true;
      },
      () => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      },
    );
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    return entry.value;
  }

  #serves(entry: Entry<T>, options: FetchOptions): boolean {
    if (options.startedAfter !== undefined) return entry.startedAt >= options.startedAfter;
    if (!entry.done) return true;
    return options.maxAgeMs !== undefined && options.maxAgeMs > 0 && Date.now() - entry.startedAt < options.maxAgeMs;
  }
}
