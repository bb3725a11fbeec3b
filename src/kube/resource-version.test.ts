import { describe, expect, it } from 'vitest';
import { compareVersions } from './resource-version.ts';

describe('compareVersions', () => {
  it('orders decimal resourceVersions numerically, beyond 2^53', () => {
    expect(compareVersions('9', '10')).toBe(-1);
    expect(compareVersions('10', '9')).toBe(1);
    expect(compareVersions('42', '42')).toBe(0);
    expect(compareVersions('1000', '999')).toBe(1);
    expect(compareVersions('90071992547409930', '90071992547409931')).toBe(-1);
  });

  it('leaves what is not a canonical positive integer incomparable (KEP-5504)', () => {
    expect(compareVersions('0', '1')).toBeUndefined();
    expect(compareVersions('01', '1')).toBeUndefined();
    expect(compareVersions('abc', '1')).toBeUndefined();
    expect(compareVersions(undefined, '1')).toBeUndefined();
  });
});
