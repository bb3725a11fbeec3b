import { describe, expect, it } from 'vitest';
import { placeholdersIn, renderTemplate, templateProblems } from './appset-template.ts';

const template = {
  name: '{{cluster}}-guestbook',
  spec: {
    source: { type: 'Git', git: { repoURL: 'https://git.example/apps.git', path: '{{ path }}' } },
    destination: { namespace: 'gb-{{ cluster }}', cluster: '{{cluster}}' },
    replicas: 3,
    labels: { '{{cluster}}': 'keys are not templated' },
    list: ['{{ path[0] }}', 'plain'],
  },
};

describe('the AppSet template language', () => {
  it('fills every placeholder of every string value, and only string values', () => {
    const out = renderTemplate(template, { cluster: 'east', path: 'apps/gb', 'path[0]': 'apps' });
    expect(out).toEqual({
      name: 'east-guestbook',
      spec: {
        source: { type: 'Git', git: { repoURL: 'https://git.example/apps.git', path: 'apps/gb' } },
        destination: { namespace: 'gb-east', cluster: 'east' },
        replicas: 3,
        labels: { '{{cluster}}': 'keys are not templated' },
        list: ['apps', 'plain'],
      },
    });
    expect(template.name).toBe('{{cluster}}-guestbook');
  });

  it('inserts a value as text: a value holding a placeholder or code is not evaluated again', () => {
    const value = '{{y}} $' + '{process.exit()} `rm -rf`';
    expect(renderTemplate({ a: '{{x}}' }, { x: value })).toEqual({ a: value });
  });

  it('lists the placeholders used', () => {
    expect([...placeholdersIn(template)].sort()).toEqual(['cluster', 'path', 'path[0]']);
  });

  it('refuses at write time a placeholder no generator provides, and a {{ that is not one', () => {
    const known = (k: string) => k === 'cluster' || k === 'path';
    expect(templateProblems(template, known)).toEqual([
      'template.spec.list[0]: unknown placeholder {{ path[0] }}: no generator provides it',
    ]);
    expect(templateProblems({ a: '{{ not a key! }}', b: '{{x}} and {{' }, () => true)).toEqual([
      'template.a: "{{" must start a placeholder {{ key }} (letters, digits, _ . - [ ])',
      'template.b: "{{" must start a placeholder {{ key }} (letters, digits, _ . - [ ])',
    ]);
    expect(templateProblems(template, () => true)).toEqual([]);
  });

  it('fails the one App whose parameter set lacks a key, naming field and key', () => {
    expect(() => renderTemplate(template, { cluster: 'east' })).toThrow(
      'template.spec.source.git.path: this generator gives no parameter path',
    );
  });
});
