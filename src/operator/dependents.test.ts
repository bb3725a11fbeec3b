import { describe, expect, it } from 'vitest';
import type { AppResource, AppStatus, Dependency } from '../core/app-schema.ts';
import { Dependents, readinessChanged } from './dependents.ts';

function app(name: string, dependsOn: Dependency[] = [], status?: AppStatus, generation = 1): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name, namespace: 'org-x', generation },
    spec: {
      source: { type: 'Git', git: { repoURL: 'https://git.example/r.git' } },
      destination: { namespace: 'd' },
      ...(dependsOn.length > 0 ? { dependsOn } : {}),
    },
    ...(status ? { status } : {}),
  };
}

describe('Dependents', () => {
  it('answers the Apps that depend on an App, and follows spec changes and deletions', () => {
    const index = new Dependents();
    index.update(app('api', [{ name: 'db' }, { name: 'cache' }]));
    index.update(app('web', [{ name: 'api' }, { name: 'db' }]));
    expect(index.of(app('db')).sort()).toEqual(['org-x/api', 'org-x/web']);
    expect(index.of(app('api'))).toEqual(['org-x/web']);
    index.update(app('web', [{ name: 'api' }], undefined, 2));
    expect(index.of(app('db'))).toEqual(['org-x/api']);
    index.remove(app('api'));
    expect(index.of(app('db'))).toEqual([]);
    expect(index.of(app('cache'))).toEqual([]);
  });
});

describe('readinessChanged', () => {
  const ready: AppStatus = { observedGeneration: 1, syncStatus: 'Synced', healthStatus: 'Healthy' };

  it('is true for a new App and a change of what its dependents read, false otherwise', () => {
    expect(readinessChanged(app('db'), undefined)).toBe(true);
    expect(readinessChanged(app('db', [], ready), app('db', [], { ...ready, healthStatus: 'Progressing' }))).toBe(true);
    expect(readinessChanged(app('db', [], ready, 2), app('db', [], ready))).toBe(true);
    expect(readinessChanged(app('db', [], { ...ready, lastSyncAt: 'x' }), app('db', [], ready))).toBe(false);
  });
});
