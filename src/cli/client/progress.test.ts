import { describe, expect, it } from 'vitest';
import { isInteractive } from './progress.ts';

const stream = (over: Partial<NodeJS.WriteStream>) => over as NodeJS.WriteStream;

describe('isInteractive', () => {
  it('gives a spinner only to a terminal that reports its width', () => {
    expect(isInteractive(stream({ isTTY: true, columns: 80 }), {})).toBe(true);
    // `script` in CI: a pseudo-terminal of 0 columns (the spinner would redraw infinitely many lines).
    expect(isInteractive(stream({ isTTY: true, columns: 0 }), {})).toBe(false);
    expect(isInteractive(stream({ isTTY: true }), {})).toBe(false);
    expect(isInteractive(stream({ isTTY: true, columns: 80 }), { TERM: 'dumb' })).toBe(false);
    expect(isInteractive(stream({ columns: 80 }), {})).toBe(false);
  });
});
