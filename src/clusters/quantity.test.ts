import { describe, expect, it } from 'vitest';
import { parseQuantity } from './quantity.ts';

describe('parseQuantity', () => {
  it('reads CPU and memory quantities', () => {
    expect(parseQuantity('100m')).toBeCloseTo(0.1);
    expect(parseQuantity('2')).toBe(2);
    expect(parseQuantity('1.5')).toBe(1.5);
    expect(parseQuantity('128Mi')).toBe(128 * 1024 * 1024);
    expect(parseQuantity('256Gi')).toBe(256 * 2 ** 30);
    expect(parseQuantity('2G')).toBe(2e9);
    expect(parseQuantity('1e3')).toBe(1000);
    expect(parseQuantity('500u')).toBeCloseTo(0.0005);
  });

  it('counts malformed or missing values as 0', () => {
    expect(parseQuantity(undefined)).toBe(0);
    expect(parseQuantity('')).toBe(0);
    expect(parseQuantity('ten')).toBe(0);
    expect(parseQuantity('1Qi')).toBe(0);
  });
});
