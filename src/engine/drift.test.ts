import { describe, expect, it } from 'vitest';
import type { AnyObject } from '../kube/index.ts';
import { describeDrift, driftOf, driftOfAll, type FieldSet } from './drift.ts';

/** The Deployment svc applies (as prepareObjects leaves it). */
const desired: AnyObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'd', labels: { 'cd.svc.space/app': 'web' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' }, creationTimestamp: null },
      spec: {
        containers: [
          { name: 'web', image: 'nginx:1.0', ports: [{ containerPort: 80 }], resources: {} },
          { name: 'log', image: 'busybox', args: ['tail', '-f'] },
        ],
        tolerations: ['x', 'y'],
      },
    },
  },
  status: {},
};

/** svc-operator's field set after applying `desired`, as the apiserver records it. */
function svcFields(): FieldSet {
  return {
    'f:metadata': { 'f:labels': { 'f:cd.svc.space/app': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:template': {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': {
          'f:containers': {
            'k:{"name":"web"}': {
              '.': {},
              'f:image': {},
              'f:name': {},
              'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
              'f:resources': {},
            },
            'k:{"name":"log"}': { '.': {}, 'f:args': {}, 'f:image': {}, 'f:name': {} },
          },
          'f:tolerations': { 'v:"x"': {}, 'v:"y"': {} },
        },
      },
    },
  };
}

function live(fields: FieldSet, others: { manager: string; operation: string; fieldsV1: FieldSet }[] = []): AnyObject {
  return {
    ...desired,
    metadata: {
      ...desired.metadata,
      managedFields: [{ manager: 'svc-operator', operation: 'Apply', fieldsV1: fields }, ...others],
    },
  };
}

describe('driftOf', () => {
  it('reads an object that holds every field svc applied as not drifted (defaulted list keys included)', () => {
    expect(driftOf(desired, live(svcFields()))).toBeUndefined();
  });

  it('names a field another writer took, and who took it (kubectl scale)', () => {
    const fields = svcFields();
    delete fields['f:spec']?.['f:replicas'];
    const scaled = live(fields, [
      { manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
    ]);
    const d = driftOf(desired, scaled);
    expect(d).toEqual({
      ref: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'd' },
      kind: 'changed',
      fields: ['spec.replicas'],
      takenBy: ['kubectl'],
    });
    expect(describeDrift(d as NonNullable<typeof d>)).toBe('Deployment web: spec.replicas (taken by kubectl)');
  });

  it('follows associative lists by key, sets by value, and atomic lists whole', () => {
    const fields = svcFields();
    const containers = fields['f:spec']?.['f:template']?.['f:spec']?.['f:containers'] as FieldSet;
    delete containers['k:{"name":"web"}']?.['f:image'];
    delete containers['k:{"name":"log"}'];
    delete fields['f:spec']?.['f:template']?.['f:spec']?.['f:tolerations']?.['v:"x"'];
    const d = driftOf(desired, live(fields, [{ manager: 'kubectl-edit', operation: 'Update', fieldsV1: {} }]));
    expect(d?.fields).toEqual([
      'spec.template.spec.containers[name=web].image',
      'spec.template.spec.containers[1]',
      'spec.template.spec.tolerations["x"]',
    ]);
    expect(d?.takenBy).toEqual([]);
  });

  it('names a lost map by its leaves, and finds its new owner there', () => {
    const cm: AnyObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { v: '1' } };
    const edited = {
      ...cm,
      metadata: {
        name: 'a',
        managedFields: [
          { manager: 'svc-operator', operation: 'Apply', fieldsV1: {} },
          { manager: 'kubectl-edit', operation: 'Update', fieldsV1: { 'f:data': { 'f:v': {} } } },
        ],
      },
    };
    expect(driftOf(cm, edited)).toMatchObject({ fields: ['data.v'], takenBy: ['kubectl-edit'] });
  });

  it('reads a deleted object as missing, and one without managedFields as not judged', () => {
    expect(driftOf(desired, undefined)?.kind).toBe('missing');
    const { managedFields: _m, ...metadata } = live(svcFields()).metadata;
    expect(driftOf(desired, { ...desired, metadata })).toBeUndefined();
  });

  it('reads an object svc never applied as drifted on every field it would set', () => {
    const adopted = live({});
    (adopted.metadata['managedFields'] as { manager: string }[])[0] = { manager: 'kubectl' };
    const fields = driftOf(desired, adopted)?.fields;
    expect(fields).toContain('metadata.labels.cd.svc.space/app');
    expect(fields).toContain('spec.replicas');
    expect(fields).toContain('spec.template.spec.containers');
  });

  it('driftOfAll reads each desired object from the live state and keeps the drifted ones', async () => {
    const byName: Record<string, AnyObject> = { web: live(svcFields()) };
    const other = { ...desired, metadata: { ...desired.metadata, name: 'gone' } };
    const all = await driftOfAll({ get: async (ref) => byName[ref.name] }, [desired, other]);
    expect(all.map((d) => [d.ref.name, d.kind])).toEqual([['gone', 'missing']]);
  });
});
