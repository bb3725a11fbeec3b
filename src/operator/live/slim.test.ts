import { describe, expect, it } from 'vitest';
import { resourceHealth } from '../../engine/health/index.ts';
import { slim } from './slim.ts';

describe('slim', () => {
  it('cuts managedFields to what drift reads, drops the last-applied annotation, keeps labels, status and spec', () => {
    const obj = {
      metadata: {
        name: 'web',
        namespace: 'n',
        resourceVersion: '7',
        labels: { a: 'b' },
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{…}', keep: 'me' },
        managedFields: [
          {
            manager: 'svc-operator',
            operation: 'Apply',
            time: 't',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': {} },
          },
          {
            manager: 'kube-controller-manager',
            operation: 'Update',
            subresource: 'status',
            fieldsV1: { 'f:status': {} },
          },
        ],
      },
      spec: { replicas: 2 },
      status: { readyReplicas: 1 },
    };
    const out = slim(obj as never, 'apps/v1', 'Deployment');
    expect(out).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'n',
        resourceVersion: '7',
        labels: { a: 'b' },
        annotations: { keep: 'me' },
        managedFields: [{ manager: 'svc-operator', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
      },
      spec: { replicas: 2 },
      status: { readyReplicas: 1 },
    });
    expect(obj.metadata.managedFields).toHaveLength(2);
  });

  it('keeps one copy of equal field sets: objects applied from one manifest share theirs', () => {
    const applied = (name: string) => ({
      metadata: {
        name,
        managedFields: [
          { manager: 'svc-operator', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } },
          { manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:data': { 'f:b': {} } } },
        ],
      },
    });
    const fieldsOf = (o: Record<string, unknown>) =>
      (o['metadata'] as { managedFields: { fieldsV1: unknown }[] }).managedFields.map((e) => e.fieldsV1);
    const [svcA, kubectlA] = fieldsOf(slim(applied('a') as never, 'v1', 'ConfigMap'));
    const [svcB, kubectlB] = fieldsOf(slim(applied('b') as never, 'v1', 'ConfigMap'));
    expect(svcB).toBe(svcA);
    expect(kubectlB).toBe(kubectlA);
    expect(kubectlA).not.toBe(svcA);
    expect(kubectlA).toEqual({ 'f:data': { 'f:b': {} } });
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

describe('slim keeps what health reads', () => {
  const meta = (extra: Record<string, unknown> = {}) => ({
    name: 'x',
    namespace: 'n',
    generation: 2,
    managedFields: [{ manager: 'svc-operator' }],
    ...extra,
  });
  const cases: [string, string, Record<string, unknown>][] = [
    [
      'networking.k8s.io/v1',
      'Ingress',
      { metadata: meta({ annotations: { 'kubernetes.io/ingress.class': 'nginx' } }), spec: {} },
    ],
    [
      'apiextensions.k8s.io/v1',
      'CustomResourceDefinition',
      {
        metadata: meta(),
        spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: {} } }] },
        status: { conditions: [{ type: 'NamesAccepted', status: 'False', reason: 'ShortNamesConflict' }] },
      },
    ],
    [
      'cert-manager.io/v1',
      'Certificate',
      {
        metadata: meta(),
        status: {
          conditions: [
            { type: 'Ready', status: 'False' },
            { type: 'Issuing', status: 'False', reason: 'Failed' },
          ],
        },
      },
    ],
    [
      'argoproj.io/v1alpha1',
      'Rollout',
      { metadata: meta(), spec: { paused: true }, status: { observedGeneration: '1' } },
    ],
    ['batch/v1', 'CronJob', { metadata: meta(), status: { lastScheduleTime: '2026-01-01T00:01:00Z' } }],
  ];
  it.each(cases)('%s %s: the same health after slimming', (apiVersion, kind, obj) => {
    const ref = { apiVersion, kind, name: 'x' };
    const before = resourceHealth(ref, obj as never);
    expect(before.status).not.toBe('Healthy');
    expect(resourceHealth(ref, slim(obj as never, apiVersion, kind) as never)).toEqual(before);
  });
});
