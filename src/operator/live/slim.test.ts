import { describe, expect, it } from 'vitest';
import { slim } from './slim.ts';

describe('slim', () => {
  it('drops managedFields and the last-applied annotation, keeps labels, status and spec', () => {
    const obj = {
      metadata: {
        name: 'web',
        namespace: 'n',
        resourceVersion: '7',
        labels: { a: 'b' },
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{…}', keep: 'me' },
        managedFields: [{ manager: 'svc-operator' }],
      },
      spec: { replicas: 2 },
      status: { readyReplicas: 1 },
    };
    const out = slim(obj as never, 'apps/v1', 'Deployment');
    expect(out).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'n', resourceVersion: '7', labels: { a: 'b' }, annotations: { keep: 'me' } },
      spec: { replicas: 2 },
      status: { readyReplicas: 1 },
    });
    expect(obj.metadata.managedFields).toHaveLength(1);
  });

  it('keeps no Secret values and no CRD schemas', () => {
    const secret = slim({ metadata: { name: 's' }, data: { k: 'dg==' }, type: 'Opaque' } as never, 'v1', 'Secret');
    expect(secret).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque' });
    const crd = slim(
      { metadata: { name: 'x' }, spec: { group: 'g', versions: [{ name: 'v1', schema: { big: 1 } }] } } as never,
      'apiextensions.k8s.io/v1',
      'CustomResourceDefinition',
    );
    expect(crd['spec']).toEqual({ group: 'g', versions: [{ name: 'v1' }] });
  });
});
