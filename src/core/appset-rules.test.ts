import { describe, expect, it } from 'vitest';
import { appSetProblems } from './appset-rules.ts';
import type { AppSetSpec, Generator } from './appset-schema.ts';

function spec(generators: Generator[], name = '{{ name }}-guestbook', path = 'guestbook'): AppSetSpec {
  return {
    generators,
    template: {
      metadata: { name },
      spec: {
        source: { type: 'Git', git: { repoURL: 'https://github.com/argoproj/argocd-example-apps.git', path } },
        destination: { namespace: 'guestbook', cluster: '{{ name }}' },
      },
    },
  };
}

const clusters: Generator = { clusters: { selector: { matchLabels: { env: 'prod' } } } };
const dirs: Generator = {
  gitDirectories: { repoURL: 'https://github.com/argoproj/argocd-example-apps.git', directories: [{ path: '*' }] },
};

describe('appSetProblems', () => {
  it('accepts placeholders every generator provides', () => {
    expect(appSetProblems(spec([clusters]))).toEqual([]);
    expect(appSetProblems(spec([{ list: { elements: [{ name: 'a' }, { name: 'b' }] } }, clusters]))).toEqual([]);
    expect(appSetProblems(spec([{ matrix: { generators: [clusters, dirs] } }], '{{name}}-{{path.basename}}'))).toEqual(
      [],
    );
  });

  it('refuses a placeholder some generator does not provide, naming the field', () => {
    expect(appSetProblems(spec([dirs]))).toEqual([
      'template.metadata.name: unknown placeholder {{ name }}: no generator provides it',
      'template.spec.destination.cluster: unknown placeholder {{ name }}: no generator provides it',
    ]);
    expect(appSetProblems(spec([clusters, { list: { elements: [{ other: 'x' }] } }]))).toHaveLength(2);
  });

  it('refuses a generator that is not exactly one kind, and a nested matrix', () => {
    expect(appSetProblems(spec([{ ...clusters, ...dirs }]))).toEqual([
      'generators[0]: set exactly one of list, clusters, gitDirectories, gitFiles, matrix, merge (found clusters, gitDirectories)',
    ]);
    expect(appSetProblems(spec([{}]))[0]).toMatch(/found none/);
    const nested = { matrix: { generators: [clusters, { ...clusters, ...dirs }] } } as Generator;
    expect(appSetProblems(spec([nested]))).toEqual([
      'generators[0].matrix.generators[1]: set exactly one of list, clusters, gitDirectories, gitFiles',
    ]);
  });
});
