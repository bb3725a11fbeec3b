/** Bounded concurrency for fan-outs (push deliveries, tag polls). Pure control flow, no I/O of its own. */

/**
 * Runs `fn` over `items` with at most `limit` calls in flight; results in input order. Rejects with the first
 * failure once every started call has settled (none is left running unobserved).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return results;
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects: the caller checks the signal). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** How a {@link BackgroundQueue} runs its jobs. */
export interface BackgroundQueueOptions<T> {
  /** Jobs run at once; more wait in the queue, in the order they were pushed. */
  concurrency: number;
  /** Jobs kept waiting at most; pushing one more drops the oldest waiting job (handed to `onDrop`). */
  max: number;
  /** Runs one job. A rejection is handed to `onError`; the queue goes on. */
  run: (job: T) => Promise<void>;
  onDrop: (job: T) => void;
  onError: (job: T, err: unknown) => void;
}

/**
 * Work handed off so a caller's path does not wait for it (Events, notifications): jobs start in push order with
 * at most `concurrency` in flight, the waiting list is bounded, and `drain` waits for everything pushed so far.
 * Held in memory: a process that exits drops what was still waiting.
 */
export class BackgroundQueue<T> {
  readonly #options: BackgroundQueueOptions<T>;
  readonly #waiting: T[] = [];
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: BackgroundQueueOptions<T>) {
    this.#options = options;
  }

  /** Queues one job; returns at once. */
  push(job: T): void {
    if (this.#waiting.length >= this.#options.max) this.#options.onDrop(this.#waiting.shift() as T);
    this.#waiting.push(job);
    this.#pump();
  }

  /** Resolves once every job pushed so far has finished (for a clean shutdown and tests). */
  async drain(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  #pump(): void {
    while (this.#inFlight.size < this.#options.concurrency && this.#waiting.length > 0) {
      const job = this.#waiting.shift() as T;
      const run = this.#options
        .run(job)
        .catch((err: unknown) => this.#options.onError(job, err))
        .finally(() => {
          this.#inFlight.delete(run);
          this.#pump();
        });
      this.#inFlight.add(run);
    }
  }
}
