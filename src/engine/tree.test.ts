import { describe, expect, it } from 'vitest';
import { buildTree } from './tree.ts';

const obj = (kind: string, name: string, uid: string, owner?: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: kind === 'Pod' ? 'v1' : 'apps/v1',
  kind,
  metadata: {
    name,
    namespace: 'ns',
    uid,
    ...(owner ? { ownerReferences: [{ uid: owner, controller: true }] } : {}),
  },
  ...extra,
});

describe('resource tree', () => {
  it('links Deployment → ReplicaSet → Pod by controller owner and leaves strangers out', () => {
    const deployment = obj('Deployment', 'web', 'd1', undefined, {
      spec: { replicas: 1, template: { spec: { containers: [{ image: 'nginx:1' }] } } },
      status: { readyReplicas: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1, observedGeneration: 1 },
    });
    const nodes = buildTree(
      [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          namespace: 'ns',
          syncStatus: 'Synced',
          live: deployment,
        },
        { apiVersion: 'v1', kind: 'Service', name: 'gone', namespace: 'ns', syncStatus: 'OutOfSync', live: undefined },
      ],
      [
        obj('Pod', 'web-abc-1', 'p1', 'r1', {
          spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
          status: { phase: 'Running', containerStatuses: [{ restartCount: 2 }] },
        }),
        obj('ReplicaSet', 'web-abc', 'r1', 'd1'),
        obj('Pod', 'other', 'p9', 'zz'),
      ],
    );
    expect(nodes.map((n) => [n.kind, n.name, n.parent])).toEqual([
      ['Deployment', 'web', null],
      ['Service', 'gone', null],
      ['ReplicaSet', 'web-abc', 'd1'],
      ['Pod', 'web-abc-1', 'r1'],
    ]);
    expect(nodes[1]).toMatchObject({ health: 'Missing', sync_status: 'OutOfSync' });
    expect(nodes[3]?.info).toMatchObject({ phase: 'Running', restarts: 2, containers: ['web'], images: ['nginx:1'] });
    expect(nodes[0]?.info).toMatchObject({ replicas: 1, ready: 1, images: ['nginx:1'] });
  });
});

describe('resource tree with custom checks', () => {
  it("shows the operator's recorded health for a kind a custom check decides", () => {
    const live = obj('Deployment', 'web', 'd1', undefined, {
      spec: { replicas: 1 },
      status: { readyReplicas: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1, observedGeneration: 1 },
    });
    const recorded = { health: 'Degraded', message: 'apps/Deployment web: custom check failed: spec.replicas < 2' };
    const [node] = buildTree(
      [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          namespace: 'ns',
          syncStatus: 'Synced',
          live,
          recorded,
        },
      ],
      [],
    );
    expect(node).toMatchObject({ health: 'Degraded', message: recorded.message });
  });
});
