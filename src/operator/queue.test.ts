import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF, WorkQueue } from './queue.ts';

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

  it('runs urgent keys before queued ones, moves a queued key ahead when it turns urgent, and keeps urgency across a re-run', async () => {
    const q = new WorkQueue();
    const seen: string[] = [];
    for (const k of ['a', 'b', 'c']) q.add(k);
    q.add('d', true);
    q.add('b', true);
    q.add('d'); // a plain add never demotes an urgent key
    let gate: () => void = () => {};
    const first = new Promise<void>((r) => {
      gate = r;
    });
    q.start(1, async (k) => {
      seen.push(k);
      if (seen.length === 1) await first;
      return undefined;
    });
    await tick();
    // 'd' is running: a plain add and an urgent add of another key while it runs.
    q.add('e');
    q.add('c', true);
    q.add('d', true);
    gate();
    await tick(10);
    expect(seen).toEqual(['d', 'b', 'c', 'd', 'a', 'e']);
    expect(q.length).toBe(0);
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

  it('backs a failing key off exponentially up to the cap, and resets on any other answer', async () => {
    vi.useFakeTimers();
    const q = new WorkQueue({ baseMs: 1_000, maxMs: 8_000, jitter: 0 });
    const at: number[] = [];
    let answer: 'backoff' | undefined = 'backoff';
    q.start(1, async () => {
      at.push(Date.now());
      return answer;
    });
    const t0 = Date.now();
    q.add('k');
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(1_000 + 2_000 + 4_000 + 8_000 + 8_000);
    expect(at.map((t) => t - t0)).toEqual([0, 1_000, 3_000, 7_000, 15_000, 23_000]);
    expect(q.failures('k')).toBe(6);
    answer = undefined;
    await vi.advanceTimersByTimeAsync(8_000);
    expect(q.failures('k')).toBe(0);
    // After the reset, the next transient failure starts at the base delay again.
    answer = 'backoff';
    q.add('k');
    await vi.advanceTimersByTimeAsync(0);
    const before = at.length;
    await vi.advanceTimersByTimeAsync(999);
    expect(at.length).toBe(before);
    await vi.advanceTimersByTimeAsync(1);
    expect(at.length).toBe(before + 1);
    await q.stop();
  });

  it('keeps failing keys apart: each has its own count', async () => {
    vi.useFakeTimers();
    const q = new WorkQueue({ baseMs: 100, maxMs: 1_000, jitter: 0 });
    q.start(2, async (key) => (key === 'bad' ? 'backoff' : 50));
    q.add('bad');
    q.add('good');
    await vi.advanceTimersByTimeAsync(100 + 200 + 5);
    expect(q.failures('bad')).toBe(3);
    expect(q.failures('good')).toBe(0);
    q.forget('bad');
    expect(q.failures('bad')).toBe(0);
    await q.stop();
  });
});

describe('backoffDelay', () => {
  it('doubles from the base, caps at 30 s by default, and jitters only downwards within its share', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map((n) => backoffDelay(n, DEFAULT_BACKOFF, 0))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
    expect(backoffDelay(0, DEFAULT_BACKOFF, 0.999)).toBe(800);
    expect(backoffDelay(10, DEFAULT_BACKOFF, 0.5)).toBe(27_000);
  });
});
