import { describe, expect, it } from 'vitest';
import { labelKeyProblems } from './names.ts';

describe('labelKeyProblems', () => {
  it('accepts Kubernetes label keys, with or without a DNS-subdomain prefix', () => {
    expect(labelKeyProblems('labels', { env: 'a', 'example.com/team': 'b', 'a.b_c-d': '', A9: 'x' })).toEqual([]);
    expect(labelKeyProblems('labels', undefined)).toEqual([]);
  });

  it('names each key that is not one', () => {
    const problems = labelKeyProblems('labels', { 'a b': 'x', '-x': 'y', 'Example.com/x': 'z', ok: 'v', '': 'e' });
    expect(problems).toHaveLength(4);
    expect(problems[0]).toContain('labels: "a b" is not a Kubernetes label key');
    expect(problems.join(' ')).toContain('"Example.com/x"');
    expect(labelKeyProblems('labels', { [`${'a'.repeat(64)}`]: 'x' })).toHaveLength(1);
  });
});
