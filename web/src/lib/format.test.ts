import { describe, expect, it } from 'vitest';
import { countOf, formatCount } from './format.ts';

describe('formatCount and countOf', () => {
  it('group digits the one way of the locale, with the noun singular only for exactly one', () => {
    expect(formatCount(10_001, 'en-US')).toBe('10,001');
    expect(formatCount(1667, 'en-US')).toBe('1,667');
    expect(formatCount(0, 'en-US')).toBe('0');
    expect(formatCount(undefined)).toBe('—');
    expect(countOf(1, 'app', undefined, 'en-US')).toBe('1 app');
    expect(countOf(10_001, 'app', undefined, 'en-US')).toBe('10,001 apps');
    expect(countOf(2, 'namespace', undefined, 'de-DE')).toBe('2 namespaces');
    expect(countOf(12_345, 'entry', 'entries', 'de-DE')).toBe('12.345 entries');
  });
});
