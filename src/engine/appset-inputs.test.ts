import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AppSetResource, AppSetSpec } from '../core/appset-schema.ts';
import { RepoCache } from '../git/index.ts';
import { gatherInputs, leavesOf, readsOutside } from './appset-inputs.ts';
import { GitTreeReader } from './sources/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-appset-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const reader = new GitTreeReader({ repos: new RepoCache({ dir }), maxFetchAgeMs: 0 });

const set = (generators: AppSetSpec['generators']): AppSetResource => ({
  apiVersion: 'cd.svc.space/v1alpha1',
  kind: 'AppSet',
  metadata: { name: 'x', namespace: 'org-acme' },
  spec: {
    generators,
    template: { metadata: { name: 'a' }, spec: { source: { type: 'Git' }, destination: { namespace: 'n' } } },
  } as AppSetSpec,
});

const list = { list: { elements: [{ a: '1' }] } };
const clusters = { clusters: { selector: { matchLabels: { env: 'prod' } } } };
const dirs = { gitDirectories: { repoURL: 'https://git.example.test/r.git', directories: [{ path: '*' }] } };

describe('AppSet inputs', () => {
  it('finds the stand-alone generators inside matrix and merge', () => {
    const s = set([list, { matrix: { generators: [clusters, dirs] } }]);
    expect(leavesOf(s)).toEqual([list, clusters, dirs]);
  });

  it('re-runs periodically only what reads Git or clusters', () => {
    expect(readsOutside(set([list]))).toBe(false);
    expect(readsOutside(set([{ merge: { mergeKeys: ['a'], generators: [list, clusters] } }]))).toBe(true);
  });

  it('reads the org clusters once, from the channel, and fails the whole gathering without one', async () => {
    const asked: string[] = [];
    const inputs = await gatherInputs(set([clusters, list]), {
      reader,
      clusters: async (org) => {
        asked.push(org);
        return [{ name: 'east', labels: { env: 'prod' } }];
      },
    });
    expect(asked).toEqual(['org-acme']);
    expect(inputs.clusters).toEqual([{ name: 'east', labels: { env: 'prod' } }]);
    await expect(gatherInputs(set([clusters]), { reader })).rejects.toThrow(
      'clusters: the operator has no channel to the server',
    );
    await expect(
      gatherInputs(set([clusters]), {
        reader,
        clusters: async () => {
          throw new Error('server down');
        },
      }),
    ).rejects.toThrow('clusters: server down');
  });

  it('names the Git generator whose repository cannot be read', async () => {
    const bad = { gitFiles: { repoURL: 'file:///etc', files: [{ path: '*.yaml' }] } };
    await expect(gatherInputs(set([bad]), { reader })).rejects.toThrow(/^gitFiles file:\/\/\/etc: generator\.repoURL/);
  });
});
