import { describe, expect, it } from 'vitest';
import type { AppResource, AppSource, AppStatus } from '../../core/app-schema.ts';
import { ConflictError } from '../../core/errors.ts';
import type { Workload } from '../kube/apps-repo.ts';
import { renderedLabels, selectorMatches, splitImage } from './adopt-service.ts';
import { inHistory, promotableImage } from './operation-service.ts';

function app(name: string, source: AppSource, status?: AppStatus): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name },
    spec: { source, destination: { namespace: 'd' } },
    ...(status ? { status } : {}),
  };
}
const git: AppSource = { type: 'Git', git: { repoURL: 'https://g/r.git' } };
const image: AppSource = { type: 'Image', image: { repository: 'r.example/shop', tag: '1' } };

describe('rollback history', () => {
  it('accepts the applied revision and earlier applied ones only', () => {
    const a = app('web', git, { revision: 'c3', previousRevisions: ['c2', 'c1'] });
    expect(['c3', 'c2', 'c1'].map((r) => inHistory(a, r))).toEqual([true, true, true]);
    expect(inHistory(a, 'c9')).toBe(false);
    expect(inHistory(app('new', git), '')).toBe(false);
  });
});

describe('promote scope', () => {
  it('needs image Apps on both sides, and two different Apps', () => {
    expect(promotableImage(app('a', image), app('b', image))).toEqual(image.image);
    for (const [from, to] of [
      [app('a', git), app('b', image)],
      [app('a', image), app('b', git)],
      [app('a', image), app('a', image)],
    ] as const) {
      expect(() => promotableImage(from, to)).toThrow(ConflictError);
    }
  });
});

describe('adopt rules', () => {
  const workload = (selector: Record<string, string>): Workload => ({
    kind: 'Deployment',
    name: 'shop',
    namespace: 'legacy',
    selector,
    labels: {},
    replicas: 1,
    containers: [],
  });

  it('adopts exactly the rendered selector', () => {
    expect(selectorMatches(workload(renderedLabels('shop')))).toBe(true);
    expect(selectorMatches(workload({ app: 'shop' }))).toBe(false);
    expect(selectorMatches(workload({ ...renderedLabels('shop'), tier: 'web' }))).toBe(false);
    expect(selectorMatches(workload({ 'app.kubernetes.io/name': 'shop' }))).toBe(false);
    expect(selectorMatches(workload({}))).toBe(false);
  });

  it('splits image references into repository and tag', () => {
    expect(splitImage('registry.example:5000/team/shop:1.4.2')).toEqual({
      repository: 'registry.example:5000/team/shop',
      tag: '1.4.2',
    });
    expect(splitImage('registry.example:5000/team/shop')).toEqual({
      repository: 'registry.example:5000/team/shop',
      tag: 'latest',
    });
    expect(splitImage(`nginx@sha256:${'a'.repeat(64)}`)).toEqual({
      repository: 'nginx',
      tag: `sha256:${'a'.repeat(64)}`,
    });
  });
});
