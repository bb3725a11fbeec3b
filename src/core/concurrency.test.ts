import { describe, expect, it } from 'vitest';
import { BackgroundQueue } from './concurrency.ts';

/** A job that finishes when the test says so. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('BackgroundQueue', () => {
  it('starts jobs in push order with at most `concurrency` in flight, and drain waits for all', async () => {
    const started: number[] = [];
    const gates = new Map<number, ReturnType<typeof gate>>();
    let inFlight = 0;
    let peak = 0;
    const queue = new BackgroundQueue<number>({
      concurrency: 2,
      max: 10,
      run: async (n) => {
        started.push(n);
        inFlight++;
        peak = Math.max(peak, inFlight);
        const g = gate();
        gates.set(n, g);
        await g.promise;
        inFlight--;
      },
      onDrop: () => expect.fail('nothing is dropped'),
      onError: () => expect.fail('nothing fails'),
    });
    for (const n of [1, 2, 3, 4]) queue.push(n);
    expect(started).toEqual([1, 2]);
    let drained = false;
    const draining = queue.drain().then(() => {
      drained = true;
    });
    gates.get(2)?.open();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1, 2, 3]);
    for (const n of [1, 3]) gates.get(n)?.open();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1, 2, 3, 4]);
    expect(drained).toBe(false);
    gates.get(4)?.open();
    await draining;
    expect(drained).toBe(true);
    expect(peak).toBe(2);
  });

  it('drops the oldest waiting job past `max`, and goes on after a job fails', async () => {
    const ran: string[] = [];
    const dropped: string[] = [];
    const failed: string[] = [];
    const first = gate();
    const queue = new BackgroundQueue<string>({
      concurrency: 1,
      max: 2,
      run: async (job) => {
        if (job === 'a') await first.promise;
        if (job === 'c') throw new Error('apiserver said no');
        ran.push(job);
      },
      onDrop: (job) => dropped.push(job),
      onError: (job, err) => failed.push(`${job}: ${(err as Error).message}`),
    });
    for (const job of ['a', 'b', 'c', 'd']) queue.push(job);
    expect(dropped).toEqual(['b']);
    first.open();
    await queue.drain();
    expect(ran).toEqual(['a', 'd']);
    expect(failed).toEqual(['c: apiserver said no']);
  });
});
