/** Runs `task(i)` for i in [0, n) with at most `concurrency` in flight; rejects on the first failure. */
export async function forEachLimit(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
}
