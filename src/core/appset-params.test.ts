import { describe, expect, it } from 'vitest';
import {
  clusterKeys,
  clusterParams,
  directoryKeys,
  eitherKeys,
  fileParams,
  listKeys,
  matrixParams,
  mergeParams,
  normalized,
  pathParams,
  selects,
} from './appset-params.ts';

describe('generator parameters', () => {
  it('clusters: name, nameNormalized and labels; selected by matchLabels', () => {
    const east = { name: 'East_1', labels: { env: 'prod', region: 'eu' } };
    expect(clusterParams(east)).toEqual({
      name: 'East_1',
      nameNormalized: 'east-1',
      'metadata.labels.env': 'prod',
      'metadata.labels.region': 'eu',
    });
    expect(selects({ matchLabels: { env: 'prod' } }, east.labels)).toBe(true);
    expect(selects({ matchLabels: { env: 'staging' } }, east.labels)).toBe(false);
    expect(selects(undefined, {})).toBe(true);
  });

  it('gitDirectories and gitFiles: Argo CD path parameters, a file flattened', () => {
    expect(pathParams('apps/Guest Book')).toEqual({
      path: 'apps/Guest Book',
      'path.basename': 'Guest Book',
      'path.basenameNormalized': 'guest-book',
      'path[0]': 'apps',
      'path[1]': 'Guest Book',
    });
    expect(fileParams('clusters/east/config.json', { cluster: { name: 'east', zones: ['a', 'b'] }, n: 3 })).toEqual({
      'cluster.name': 'east',
      'cluster.zones[0]': 'a',
      'cluster.zones[1]': 'b',
      n: '3',
      path: 'clusters/east',
      'path.basename': 'east',
      'path.basenameNormalized': 'east',
      'path[0]': 'clusters',
      'path[1]': 'east',
      'path.filename': 'config.json',
      'path.filenameNormalized': 'config-json',
    });
  });

  it('matrix: every pair; merge: base sets overlaid by the matching other set', () => {
    const clusters = [{ name: 'a' }, { name: 'b' }];
    const apps = [{ app: 'x' }, { app: 'y' }];
    expect(matrixParams(clusters, apps)).toEqual([
      { name: 'a', app: 'x' },
      { name: 'a', app: 'y' },
      { name: 'b', app: 'x' },
      { name: 'b', app: 'y' },
    ]);
    const base = [
      { name: 'a', size: 's' },
      { name: 'b', size: 's' },
    ];
    const over = [
      { name: 'b', size: 'l' },
      { name: 'c', size: 'xl' },
    ];
    expect(mergeParams(base, over, ['name'])).toEqual([
      { name: 'a', size: 's' },
      { name: 'b', size: 'l' },
    ]);
  });

  it('says which keys each generator can provide', () => {
    expect(listKeys([{ a: '1' }, { b: '2' }])('b')).toBe(true);
    expect(listKeys([{ a: '1' }])('c')).toBe(false);
    expect(clusterKeys('metadata.labels.env')).toBe(true);
    expect(clusterKeys('server')).toBe(false);
    expect(directoryKeys('path[2]')).toBe(true);
    expect(directoryKeys('path.filename')).toBe(false);
    expect(eitherKeys(clusterKeys, directoryKeys)('path')).toBe(true);
  });

  it('normalizes a name into a DNS label piece', () => {
    expect(normalized('--My.App_v2--')).toBe('my-app-v2');
    expect(normalized('x'.repeat(70)).length).toBe(63);
  });
});
