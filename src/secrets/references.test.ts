import { describe, expect, it } from 'vitest';
import type { AppResource } from '../core/app-schema.ts';
import { storeUsesOf, usesOfStore } from './references.ts';

const app = (source: AppResource['spec']['source']): AppResource =>
  ({
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'a' },
    spec: { source, destination: { namespace: 'd' } },
  }) as AppResource;

describe('store references of an App', () => {
  const git = app({ type: 'Git', git: { repoURL: 'https://g/r.git', decryption: { storeRef: 'age-main' } } });
  const image = app({
    type: 'Image',
    image: {
      repository: 'r/web',
      tag: '1',
      workload: {
        env: [
          { name: 'A', store: { id: 'sts_1', path: 'p', key: 'a' } },
          { name: 'B', value: 'literal' },
          { name: 'C', store: { id: 'sts_2', path: 'p', key: 'c' } },
        ],
      },
    },
  });

  it('finds decryption.storeRef (by name) and env[].store (by id)', () => {
    expect(storeUsesOf(git)).toEqual([{ usage: 'decryption', ref: 'age-main' }]);
    expect(storeUsesOf(image)).toEqual([
      { usage: 'env', ref: 'sts_1', env: 'A' },
      { usage: 'env', ref: 'sts_2', env: 'C' },
    ]);
  });

  it('matches a store by the id env entries use and the name decryption uses, not the other way round', () => {
    expect(usesOfStore(git, { id: 'sts_9', name: 'age-main' })).toHaveLength(1);
    expect(usesOfStore(git, { id: 'age-main', name: 'other' })).toHaveLength(0);
    expect(usesOfStore(image, { id: 'sts_2', name: 'x' })).toEqual([{ usage: 'env', ref: 'sts_2', env: 'C' }]);
    expect(usesOfStore(image, { id: 'sts_3', name: 'sts_1' })).toHaveLength(0);
  });

  it('ignores the block of another source type', () => {
    const stale = app({ type: 'Image', image: { repository: 'r', tag: '1' }, git: git.spec.source.git });
    expect(storeUsesOf(stale)).toEqual([]);
  });
});
