import { describe, expect, it } from 'vitest';
import type { AnyObject } from '../kube/index.ts';
import { driftOf, respectIgnored } from './drift.ts';
import { ignoredOf, NOTHING_IGNORED, pointerTokens, setAt, valueAt } from './ignore.ts';

const deployment = (replicas: number, managedFields?: unknown[]): AnyObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'd', ...(managedFields ? { managedFields } : {}) },
  spec: { replicas, template: { spec: { containers: [{ name: 'main', image: 'nginx:1.0' }] } } },
});

/** Live after an HPA (kube-controller-manager, through the scale subresource) set replicas to 4. */
const scaled = deployment(4, [
  {
    manager: 'svc-operator',
    operation: 'Apply',
    fieldsV1: {
      'f:spec': {
        'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"main"}': { 'f:image': {}, 'f:name': {} } } } },
      },
    },
  },
  {
    manager: 'kube-controller-manager',
    operation: 'Update',
    subresource: 'scale',
    fieldsV1: { 'f:spec': { 'f:replicas': {} } },
  },
]);

describe('ignoreDifferences', () => {
  it('matches rules by group, kind, name and namespace (absent group = core, * = any)', () => {
    const rules = [
      { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] },
      { kind: 'Deployment', jsonPointers: ['/never'] },
      { group: '*', kind: '*', name: 'other', managedFieldsManagers: ['x'] },
      { group: 'apps', kind: 'Deployment', namespace: 'd', managedFieldsManagers: ['kube-controller-manager'] },
    ];
    const got = ignoredOf(rules, deployment(1));
    expect(got.pointers).toEqual([['spec', 'replicas']]);
    expect([...got.managers]).toEqual(['kube-controller-manager']);
    expect(ignoredOf([], deployment(1))).toBe(NOTHING_IGNORED);
  });

  it('reads and writes JSON pointers (RFC 6901 escapes, list indexes)', () => {
    expect(pointerTokens('/metadata/annotations/a~1b~0c')).toEqual(['metadata', 'annotations', 'a/b~c']);
    const obj = deployment(1) as unknown as Record<string, unknown>;
    expect(valueAt(obj, pointerTokens('/spec/template/spec/containers/0/image'))).toBe('nginx:1.0');
    setAt(obj, ['spec', 'template', 'spec', 'containers', '0', 'image'], 'nginx:2.0');
    setAt(obj, ['spec', 'strategy', 'type'], 'Recreate');
    setAt(obj, ['spec', 'replicas'], undefined);
    setAt(obj, ['spec', 'template', 'spec', 'containers', '5', 'image'], 'x');
    expect(obj['spec']).toEqual({
      strategy: { type: 'Recreate' },
      template: { spec: { containers: [{ name: 'main', image: 'nginx:2.0' }] } },
    });
  });

  it('a field taken by an ignored manager, or under an ignored pointer, is not drift', () => {
    expect(driftOf(deployment(1), scaled)?.takenBy).toEqual(['kube-controller-manager']);
    const byManager = ignoredOf(
      [{ group: 'apps', kind: 'Deployment', managedFieldsManagers: ['kube-controller-manager'] }],
      scaled,
    );
    expect(driftOf(deployment(1), scaled, byManager)).toBeUndefined();
    const byPointer = ignoredOf([{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec'] }], scaled);
    expect(driftOf(deployment(1), scaled, byPointer)).toBeUndefined();
    const other = ignoredOf([{ group: 'apps', kind: 'Deployment', managedFieldsManagers: ['someone-else'] }], scaled);
    expect(driftOf(deployment(1), scaled, other)?.fields).toEqual(['spec.replicas']);
  });

  it('a sync keeps the live value of an ignored field, and creates an object that is not live as rendered', () => {
    const byManager = ignoredOf(
      [{ group: 'apps', kind: 'Deployment', managedFieldsManagers: ['kube-controller-manager'] }],
      scaled,
    );
    expect(respectIgnored(deployment(1), scaled, byManager)['spec']).toMatchObject({ replicas: 4 });
    const byPointer = ignoredOf([{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }], scaled);
    const desired = deployment(1);
    expect(respectIgnored(desired, scaled, byPointer)['spec']).toMatchObject({ replicas: 4 });
    expect(desired['spec']).toMatchObject({ replicas: 1 });
    expect(respectIgnored(desired, undefined, byPointer)).toBe(desired);
  });

  it("never takes a Secret's values from the live cache, which keeps none", () => {
    const secret: AnyObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'v' } };
    const ignored = ignoredOf([{ kind: 'Secret', jsonPointers: ['/stringData/k'] }], secret);
    const live = { ...secret, stringData: undefined };
    expect(respectIgnored(secret, live, ignored)['stringData']).toEqual({ k: 'v' });
  });
});
