import { describe, expect, it } from 'vitest';
import { compareVersions } from './resource-version.ts';

describe('compareVersions', () => {
  it('orders decimal resourceVersions numerically, beyond 2^53, and leaves anything else incomparable', () => {
    expect(compareVersions('9', '10')).toBeLessThan(0);
    expect(compareVersions('10', '9')).toBeGreaterThan(0);
    expect(compareVersions('42', '42')).toBe(0);
    expect(compareVersions('90071992547409930', '90071992547409931')).toBeLessThan(0);
    expect(compareVersions('abc', '1')).toBeUndefined();
    expect(compareVersions(undefined, '1')).toBeUndefined();
  });
});
