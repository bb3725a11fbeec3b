import { describe, expect, it } from 'vitest';
import type { AppResource, AppSource, AppStatus } from '../../core/app-schema.ts';
import { inHistory } from '../../core/app-state.ts';
import { ConflictError } from '../../core/errors.ts';
import { renderedLabels } from '../../render/index.ts';
import type { Workload } from '../kube/apps-repo.ts';
import { adoptedImageSource, adoptionProblem, selectorMatches, splitImage } from './adopt-image.ts';
import { promotableImage } from './operation-use-cases.ts';

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
    pod: { containers: [] },
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
    expect(splitImage(`r.example:5000/shop:1.2@sha256:${'b'.repeat(64)}`)).toEqual({
      repository: 'r.example:5000/shop',
      tag: `sha256:${'b'.repeat(64)}`,
    });
  });

  it('adopts one container named after the Deployment; says why not otherwise', () => {
    const adoptable = { ...workload(renderedLabels('shop')), pod: { containers: [{ name: 'shop', image: 'x' }] } };
    expect(adoptionProblem(adoptable)).toBeUndefined();
    expect(adoptionProblem({ ...adoptable, kind: 'StatefulSet' })).toMatch(/StatefulSets cannot be adopted/);
    expect(adoptionProblem({ ...adoptable, selector: { app: 'shop' } })).toMatch(/selector must match/);
    expect(adoptionProblem({ ...adoptable, pod: { containers: [{ name: 'main' }] } })).toMatch(
      /one container, named shop/,
    );
  });

  it('copies the template into the image source, relative to a registered registry host', () => {
    const digest = `sha256:${'c'.repeat(64)}`;
    const w = {
      ...workload(renderedLabels('shop')),
      replicas: 2,
      pod: {
        imagePullSecrets: [{ name: 'pull' }],
        containers: [
          {
            name: 'shop',
            image: `127.0.0.1:5000/team/shop@${digest}`,
            ports: [{ containerPort: 8080 }],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
            ],
            resources: { requests: { cpu: '50m' } },
            readinessProbe: { httpGet: { path: '/ready' }, periodSeconds: 10, failureThreshold: 3 },
          },
        ],
      },
    };
    const registry = { name: 'local', host: '127.0.0.1:5000' } as Parameters<typeof adoptedImageSource>[1][number];
    expect(adoptedImageSource(w, [registry])).toEqual({
      registryRef: 'local',
      repository: 'team/shop',
      tag: digest,
      tagPolicy: 'Pinned',
      pullSecretRef: 'pull',
      workload: {
        replicas: 2,
        port: 8080,
        env: [
          { name: 'A', value: '1' },
          { name: 'B', secretRef: { name: 's', key: 'k' } },
        ],
        resources: { requests: { cpu: '50m' } },
        probe: { path: '/ready', periodSeconds: 10, failureThreshold: 3 },
      },
    });
    const bare = { ...w, pod: { containers: [{ name: 'shop', image: 'nginx:1.27' }] } };
    expect(adoptedImageSource(bare, [registry])).toMatchObject({
      repository: 'nginx',
      tag: '1.27',
      workload: { resources: {}, probe: { disabled: true } },
    });
  });
});
