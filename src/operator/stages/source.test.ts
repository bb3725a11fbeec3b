import { describe, expect, it } from 'vitest';
import { freshness } from './source.ts';

const at = '2026-11-21T05:00:00.000Z';

describe('freshness', () => {
  it('reuses a young fetch without an operation, fetches anew for an operation, and shares one fetch per push', () => {
    expect(freshness(undefined, 15_000)).toEqual({ maxAgeMs: 15_000 });
    expect(freshness({ kind: 'Sync', initiatedAt: at, id: 'a', triggeredBy: 'user:dev' }, 15_000)).toEqual({
      maxAgeMs: 0,
    });
    expect(freshness({ kind: 'Sync', initiatedAt: at, id: 'b', triggeredBy: 'webhook:gitA' }, 15_000)).toEqual({
      startedAfter: Date.parse(at),
    });
  });
});
