import { describe, expect, it } from 'vitest';
import type { AppResource, AppStatus, Dependency } from './app-schema.ts';
import { blockedBy, cycleMessage, dependenciesOf, findCycle, sameNamespaceDependencies } from './dependencies.ts';

const READY: AppStatus = { observedGeneration: 1, syncStatus: 'Synced', healthStatus: 'Healthy' };

function app(name: string, dependsOn: Dependency[] = [], status?: AppStatus): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name, namespace: 'org-x', generation: 1 },
    spec: {
      source: { type: 'Git', git: { repoURL: 'https://git.example/r.git' } },
      destination: { namespace: 'd' },
      ...(dependsOn.length > 0 ? { dependsOn } : {}),
    },
    ...(status ? { status } : {}),
  };
}

function lookupOf(...apps: AppResource[]) {
  const by = new Map(apps.map((a) => [`${a.metadata.namespace}/${a.metadata.name}`, a]));
  return (ref: { namespace: string; name: string }) => by.get(`${ref.namespace}/${ref.name}`);
}

describe('blockedBy', () => {
  const api = app('api', [{ name: 'db' }]);

  it('is empty when every dependency is Synced and Healthy at its current spec', () => {
    expect(blockedBy(api, lookupOf(app('db', [], READY)))).toEqual([]);
    expect(blockedBy(app('lone'), lookupOf())).toEqual([]);
  });

  it('says why a dependency is not ready', () => {
    const cases: [AppResource | undefined, string][] = [
      [undefined, 'not found'],
      [app('db'), 'its current spec is not reconciled yet'],
      [app('db', [], { ...READY, observedGeneration: 0 }), 'its current spec is not reconciled yet'],
      [
        app('db', [], { ...READY, healthStatus: 'Progressing', healthReason: 'apps/Deployment db: 1/3 ready' }),
        'Progressing: apps/Deployment db: 1/3 ready',
      ],
      [app('db', [], { ...READY, healthStatus: 'Degraded' }), 'Degraded'],
      [app('db', [], { ...READY, syncStatus: 'OutOfSync' }), 'OutOfSync'],
      [
        app('db', [], {
          ...READY,
          syncStatus: 'OutOfSync',
          conditions: [{ type: 'SyncError', status: 'True', message: 'render: no such path' }],
        }),
        'OutOfSync: render: no such path',
      ],
      [
        app('db', [], {
          ...READY,
          conditions: [{ type: 'Stalled', status: 'True', message: 'bad spec' }],
        }),
        'Stalled: bad spec',
      ],
    ];
    for (const [db, reason] of cases) {
      expect(blockedBy(api, lookupOf(...(db ? [db] : [])))).toEqual([{ app: 'db', reason }]);
    }
  });

  it('waits for a requested or running operation of a dependency that reads ready', () => {
    const requested = app('db', [], READY);
    requested.spec.operation = { kind: 'Sync', initiatedAt: '2026-11-26T10:00:00.000Z', id: 'o1' };
    expect(blockedBy(api, lookupOf(requested))).toEqual([{ app: 'db', reason: 'a Sync operation is requested' }]);
    const running = structuredClone(requested);
    const { kind, initiatedAt, id } = running.spec.operation as NonNullable<AppResource['spec']['operation']>;
    running.status = { ...READY, operationState: { kind, initiatedAt, id, phase: 'Running' } };
    expect(blockedBy(api, lookupOf(running))).toEqual([{ app: 'db', reason: 'a Sync operation is running' }]);
  });

  it('refuses a dependency in another namespace (another org) and names each dependency once', () => {
    const cross = app('api', [{ name: 'db', namespace: 'org-y' }, { name: 'cache' }, { name: 'cache' }]);
    const other = { ...app('db', [], READY), metadata: { name: 'db', namespace: 'org-y', generation: 1 } };
    expect(blockedBy(cross, lookupOf(other))).toEqual([
      { app: 'db', reason: 'in namespace org-y: dependencies must be Apps of the same org' },
      { app: 'cache', reason: 'not found' },
    ]);
  });

  it('clips a long reason', () => {
    const db = app('db', [], { ...READY, healthStatus: 'Degraded', healthReason: 'x'.repeat(1000) });
    const [entry] = blockedBy(api, lookupOf(db));
    expect(entry?.reason.length).toBe(300);
    expect(entry?.reason.endsWith('…')).toBe(true);
  });
});

describe('findCycle', () => {
  const graph = (edges: Record<string, string[]>) => (name: string) => edges[name] ?? [];

  it('finds the cycle through the start App and names it', () => {
    const cycle = findCycle('a', graph({ a: ['b'], b: ['c'], c: ['a'] }));
    expect(cycle).toEqual(['a', 'b', 'c', 'a']);
    expect(cycleMessage(cycle ?? [])).toBe('dependency cycle: a → b → c → a');
    expect(findCycle('a', graph({ a: ['a'] }))).toEqual(['a', 'a']);
  });

  it('answers undefined for a graph without a cycle through the start', () => {
    expect(findCycle('a', graph({ a: ['b', 'c'], b: ['c'], c: [] }))).toBeUndefined();
    // b and c form a cycle a merely depends on: a is blocked, not in a cycle.
    expect(findCycle('a', graph({ a: ['b'], b: ['c'], c: ['b'] }))).toBeUndefined();
  });

  it('visits each App once in a large graph', () => {
    let calls = 0;
    const wide = (name: string) => {
      calls++;
      const n = Number(name);
      return n < 2000 ? [String(n + 1), String(n + 2)] : [];
    };
    expect(findCycle('0', wide)).toBeUndefined();
    expect(calls).toBeLessThanOrEqual(2003);
  });
});

describe('dependenciesOf', () => {
  it("fills in the App's own namespace and keeps only same-namespace edges for cycles", () => {
    const a = app('a', [{ name: 'b' }, { name: 'c', namespace: 'org-y' }]);
    expect(dependenciesOf(a)).toEqual([
      { namespace: 'org-x', name: 'b' },
      { namespace: 'org-y', name: 'c' },
    ]);
    expect(sameNamespaceDependencies(a)).toEqual(['b']);
  });
});
