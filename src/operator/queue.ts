/**
 * A work queue keyed by string (namespace/name), after client-go's: a key is never processed by two workers at
 * once; adding a key that is queued is a no-op (bursts coalesce); adding a key being processed marks it dirty so
 * it runs once more afterwards; delayed adds keep only the earliest due time. A handler that answers `backoff`
 * (a transient failure) is retried after a per-key exponential delay with jitter, like client-go's
 * ItemExponentialFailureRateLimiter; any other answer resets that key's delay. A key added as urgent (a user or a push
 * asked for something) goes ahead of the keys queued by watches and timers, so a burst of health changes never
 * delays a requested sync; `urgentWorkers` more workers serve urgent keys alone (as Argo CD keeps operation
 * processors apart from status processors).
 */
import { type BackoffPolicy, backoffDelay } from '../core/backoff.ts';

export { type BackoffPolicy, backoffDelay } from '../core/backoff.ts';

/** When to run a key again: after this many ms, after the key's backoff delay, or not until it is added. */
export type Requeue = number | 'backoff' | undefined;
export type Handler = (key: string) => Promise<Requeue>;

/** 1 s doubling up to the contract's 30 s error cadence (§3 rule 7, §8), up to 20 % earlier at random. */
export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 30_000, jitter: 0.2 };

/** Keyed work queue with a fixed number of workers. */
export class WorkQueue {
  readonly #queue: string[] = [];
  /** Urgent keys, taken before `#queue`. */
  readonly #urgent: string[] = [];
  /** Queued keys, each in exactly one of the two lanes: true when urgent. */
  readonly #queued = new Map<string, boolean>();
  readonly #processing = new Set<string>();
  /** Keys added while being processed: run once more afterwards (true when any of those adds was urgent). */
  readonly #dirty = new Map<string, boolean>();
  readonly #timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  /** Consecutive `backoff` answers per key. */
  readonly #failures = new Map<string, number>();
  readonly #backoff: BackoffPolicy;
  #handler: Handler | undefined;
  #workers = 0;
  /** Workers beyond `#workers` that only urgent keys may use. */
  #urgentWorkers = 0;
  #active = 0;
  #stopped = false;
  readonly #idle: (() => void)[] = [];

  constructor(backoff: BackoffPolicy = DEFAULT_BACKOFF) {
    this.#backoff = backoff;
  }

  /** Queues `key` now; `urgent` puts it ahead of every key not urgent (moving it there when already queued). */
  add(key: string, urgent = false): void {
    if (this.#stopped) return;
    const t = this.#timers.get(key);
    if (t) {
      clearTimeout(t.timer);
      this.#timers.delete(key);
    }
    if (this.#processing.has(key)) {
      this.#dirty.set(key, urgent || this.#dirty.get(key) === true);
      return;
    }
    const lane = this.#queued.get(key);
    if (lane === true || (lane === false && !urgent)) return;
    if (lane === false) this.#queue.splice(this.#queue.indexOf(key), 1);
    this.#queued.set(key, urgent);
    (urgent ? this.#urgent : this.#queue).push(key);
    this.#pump();
  }

  /** Queues `key` after `ms`, unless it is due earlier already. */
  addAfter(key: string, ms: number): void {
    if (this.#stopped) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + ms;
    const existing = this.#timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref?.();
    this.#timers.set(key, { at, timer });
  }

  /** Forgets pending timers and the backoff of `key` (the object is gone). */
  forget(key: string): void {
    const t = this.#timers.get(key);
    if (t) clearTimeout(t.timer);
    this.#timers.delete(key);
    this.#failures.delete(key);
  }

  /** Consecutive transient failures of `key` (for tests and metrics). */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** Starts `workers` workers calling `handler`; its answer says when to run the key again (see Requeue). */
  start(workers: number, handler: Handler, urgentWorkers = 0): void {
    this.#urgentWorkers = urgentWorkers;
    this.#handler = handler;
    this.#workers = workers;
    this.#stopped = false;
    this.#pump();
  }

  /** Stops taking work; resolves when running handlers have finished. Pending keys and timers are dropped. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const t of this.#timers.values()) clearTimeout(t.timer);
    this.#timers.clear();
    this.#queue.length = 0;
    this.#urgent.length = 0;
    this.#queued.clear();
    this.#dirty.clear();
    this.#failures.clear();
    if (this.#active === 0) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  /** Keys waiting or running (for tests and metrics). */
  get length(): number {
    return this.#queue.length + this.#urgent.length + this.#processing.size;
  }

  #pump(): void {
    while (!this.#stopped && this.#handler) {
      const urgent = this.#urgent.length > 0;
      if (this.#active >= this.#workers + (urgent ? this.#urgentWorkers : 0)) return;
      const key = urgent ? this.#urgent.shift() : this.#queue.shift();
      if (key === undefined) return;
      this.#queued.delete(key);
      this.#processing.add(key);
      this.#active++;
      void this.#process(key, this.#handler);
    }
  }

  async #process(key: string, handler: Handler): Promise<void> {
    let requeue: Requeue;
    try {
      requeue = await handler(key);
    } catch {
      requeue = 'backoff';
    }
    this.#processing.delete(key);
    this.#active--;
    if (!this.#stopped) {
      const delay = this.#delayFor(key, requeue);
      const dirty = this.#dirty.get(key);
      this.#dirty.delete(key);
      if (dirty !== undefined) this.add(key, dirty);
      else if (delay !== undefined) this.addAfter(key, delay);
    }
    if (this.#active === 0) for (const r of this.#idle.splice(0)) r();
    this.#pump();
  }

  /** The requeue delay of an answer; counts consecutive `backoff` answers per key, any other answer resets them. */
  #delayFor(key: string, requeue: Requeue): number | undefined {
    if (requeue !== 'backoff') {
      this.#failures.delete(key);
      return requeue;
    }
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    return backoffDelay(failures, this.#backoff);
  }
}
