import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkQueue } from './queue.ts';

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('WorkQueue', () => {
  it('never runs one key twice at once and re-runs a key added while it was running', async () => {
    const q = new WorkQueue();
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    let release: () => void = () => {};
    q.start(4, async () => {
      running++;
      runs++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise<void>((r) => {
        release = r;
      });
      running--;
      return undefined;
    });
    q.add('a');
    await tick();
    q.add('a');
    q.add('a');
    q.add('a');
    await tick();
    expect(runs).toBe(1);
    release();
    await tick(5);
    expect(runs).toBe(2);
    release();
    await tick(5);
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
    await q.stop();
  });

  it('coalesces bursts of one key and runs different keys in parallel', async () => {
    const q = new WorkQueue();
    const seen: string[] = [];
    q.add('x');
    q.add('x');
    q.add('y');
    q.start(2, async (k) => {
      seen.push(k);
      return undefined;
    });
    await tick(5);
    expect(seen.sort()).toEqual(['x', 'y']);
    await q.stop();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('requeues after the delay the handler returns, keeping the earliest due time', async () => {
    vi.useFakeTimers();
    const q = new WorkQueue();
    let runs = 0;
    q.start(1, async () => {
      runs++;
      return runs === 1 ? 30_000 : undefined;
    });
    q.add('k');
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    q.addAfter('k', 60_000);
    q.addAfter('k', 10);
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toBe(3);
    await q.stop();
  });
});
