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
