import { describe, expect, it } from 'vitest';
import { Interner } from './interner.ts';

describe('Interner', () => {
  it('answers the first of equal values, and each distinct value itself', () => {
    const pool = new Interner<Record<string, unknown>>();
    const first = { 'f:spec': { 'f:replicas': {} } };
    const equal = { 'f:spec': { 'f:replicas': {} } };
    const other = { 'f:spec': { 'f:paused': {} } };
    expect(pool.intern(first)).toBe(first);
    expect(pool.intern(equal)).toBe(first);
    expect(pool.intern(other)).toBe(other);
    expect(pool.size).toBe(2);
  });

  it('keeps values in another key order apart (a copy, never a wrong answer)', () => {
    const pool = new Interner<Record<string, unknown>>();
    const ab = { a: {}, b: {} };
    const ba = { b: {}, a: {} };
    expect(pool.intern(ab)).toBe(ab);
    expect(pool.intern(ba)).toBe(ba);
  });
});
