import { describe, expect, it } from 'vitest';
import { RenderCache, type RenderInput, renderKey, sourceKey } from './cache.ts';
import type { RenderResult } from './git-source.ts';

const base: RenderInput = {
  repoURL: 'https://git.example/org/repo.git',
  revision: 'a'.repeat(40),
  git: { path: 'deploy' },
  appName: 'web',
  namespace: 'team-a',
};
const withGit = (git: RenderInput['git'], extra: Partial<RenderInput> = {}): RenderInput => ({
  ...base,
  ...extra,
  git: { ...base.git, ...git },
});

describe('renderKey', () => {
  it('differs for every field the renderer reads', () => {
    const k = renderKey(base, 'Kustomize');
    expect(renderKey({ ...base, repoURL: 'https://git.example/org/other.git' }, 'Kustomize')).not.toBe(k);
    expect(renderKey({ ...base, revision: 'b'.repeat(40) }, 'Kustomize')).not.toBe(k);
    expect(renderKey(withGit({ path: 'other' }), 'Kustomize')).not.toBe(k);
    expect(renderKey(base, 'Raw')).not.toBe(k);
    expect(renderKey(withGit({ kustomize: { namePrefix: 'x-' } }), 'Kustomize')).not.toBe(k);
    expect(renderKey(withGit({ kustomize: { images: ['nginx=nginx:1.27'] } }), 'Kustomize')).not.toBe(k);
    expect(renderKey(withGit({ kustomize: { components: ['c'] } }), 'Kustomize')).not.toBe(k);
    expect(sourceKey(withGit({ manifestType: 'Raw' }))).not.toBe(sourceKey(base));

    const h = renderKey(base, 'Helm');
    expect(renderKey({ ...base, appName: 'api' }, 'Helm')).not.toBe(h); // the default release name
    expect(renderKey({ ...base, namespace: 'team-b' }, 'Helm')).not.toBe(h); // helm template --namespace
    expect(renderKey(withGit({ helm: { releaseName: 'r' } }), 'Helm')).not.toBe(h);
    expect(renderKey(withGit({ helm: { valuesFile: 'prod.yaml' } }), 'Helm')).not.toBe(h);
    expect(renderKey(withGit({ helm: { inlineValues: { a: '1' } } }), 'Helm')).not.toBe(h);
    expect(renderKey(withGit({ helm: { inlineValues: { a: '2' } } }), 'Helm')).not.toBe(
      renderKey(withGit({ helm: { inlineValues: { a: '1' } } }), 'Helm'),
    );
  });

  it('is shared across fields the renderer does not read', () => {
    // Raw and Kustomize output does not depend on the App's name or destination (defaulted after the cache).
    for (const kind of ['Raw', 'Kustomize'] as const) {
      expect(renderKey({ ...base, appName: 'api', namespace: 'team-b' }, kind)).toBe(renderKey(base, kind));
    }
    // Raw ignores renderer options of other kinds; Kustomize ignores Helm's and the other way round.
    expect(renderKey(withGit({ kustomize: { namePrefix: 'x-' }, helm: { releaseName: 'r' } }), 'Raw')).toBe(
      renderKey(base, 'Raw'),
    );
    expect(renderKey(withGit({ helm: { releaseName: 'r' } }), 'Kustomize')).toBe(renderKey(base, 'Kustomize'));
    expect(renderKey(withGit({ kustomize: { namePrefix: 'x-' } }), 'Helm')).toBe(renderKey(base, 'Helm'));
    // An explicit Helm release name and namespace make the App's name and destination irrelevant.
    const fixed = { releaseName: 'r', namespace: 'n' };
    expect(renderKey(withGit({ helm: fixed }, { appName: 'api', namespace: 'team-b' }), 'Helm')).toBe(
      renderKey(withGit({ helm: fixed }), 'Helm'),
    );
    // `path` defaults to the repository root; inline values are a map (order does not matter).
    expect(renderKey(withGit({ path: '' }), 'Raw')).toBe(renderKey(withGit({ path: '.' }), 'Raw'));
    expect(renderKey(withGit({ helm: { inlineValues: { a: '1', b: '2' } } }), 'Helm')).toBe(
      renderKey(withGit({ helm: { inlineValues: { b: '2', a: '1' } } }), 'Helm'),
    );
  });
});

const result = (name: string): RenderResult => ({
  manifestType: 'Kustomize',
  objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { a: 'b' } }, data: { k: 'v' } }],
});

describe('RenderCache', () => {
  it('renders once for many Apps sharing a source, and hands each its own copy', async () => {
    const cache = new RenderCache();
    let produced = 0;
    const produce = async () => {
      produced++;
      await new Promise((r) => setTimeout(r, 10));
      return result('shared');
    };
    const apps = Array.from({ length: 20 }, (_, i) => ({ ...base, appName: `app-${i}`, namespace: `ns-${i}` }));
    const out = await Promise.all(apps.map((a) => cache.render(a, produce)));
    expect(produced).toBe(1);
    const first = out[0]?.objects[0];
    if (!first) throw new Error('no object');
    first.metadata.labels = { mutated: 'yes' };
    expect(out[1]?.objects[0]?.metadata.labels).toEqual({ a: 'b' });
    expect((await cache.render(base, produce)).objects[0]?.metadata.labels).toEqual({ a: 'b' });
    expect(produced).toBe(1);
    // A new revision renders again.
    await cache.render({ ...base, revision: 'c'.repeat(40) }, produce);
    expect(produced).toBe(2);
  });

  it('does not cache failures, and drops the least recently used render beyond its size', async () => {
    const cache = new RenderCache(2);
    await expect(cache.render(base, () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    expect(cache.size).toBe(0);
    let produced = 0;
    const produce = async () => {
      produced++;
      return result('x');
    };
    const rev = (c: string) => ({ ...base, revision: c.repeat(40) });
    await cache.render(rev('1'), produce);
    await cache.render(rev('2'), produce);
    await cache.render(rev('1'), produce); // 1 is now the most recent
    await cache.render(rev('3'), produce); // drops 2
    expect(produced).toBe(3);
    expect(cache.size).toBe(2);
    await cache.render(rev('1'), produce);
    expect(produced).toBe(3);
    await cache.render(rev('2'), produce);
    expect(produced).toBe(4);
  });
});
