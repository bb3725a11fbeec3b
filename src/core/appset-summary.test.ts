import { describe, expect, it } from 'vitest';
import { generatorKinds } from './appset-summary.ts';

describe('generatorKinds', () => {
  it('names each generator by its kind, and the two children of a matrix or merge', () => {
    expect(
      generatorKinds([
        { list: { elements: [] } },
        { matrix: { generators: [{ clusters: {} }, { gitDirectories: {} }] } },
        { merge: { generators: [{ list: {} }, { clusters: {} }], mergeKeys: ['name'] } },
      ]),
    ).toBe('list, matrix(clusters, gitDirectories), merge(list, clusters)');
  });
});
