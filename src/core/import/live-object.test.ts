import { describe, expect, it } from 'vitest';
import { authoredObject } from './live-object.ts';

describe('authoredObject', () => {
  it('drops what the server and controllers set, keeps what the author wrote', () => {
    const live = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: {
        name: 'guestbook',
        namespace: 'argocd',
        uid: 'u',
        resourceVersion: '12',
        generation: 3,
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [{ manager: 'kubectl' }],
        finalizers: ['resources-finalizer.argocd.argoproj.io'],
        labels: { team: 'a' },
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"c2VjcmV0"}}',
          'argocd.argoproj.io/sync-wave': '1',
        },
      },
      spec: { project: 'default' },
      operation: { sync: {} },
      status: { sync: { status: 'Synced' } },
    };
    expect(authoredObject(live)).toEqual({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: {
        name: 'guestbook',
        namespace: 'argocd',
        finalizers: ['resources-finalizer.argocd.argoproj.io'],
        labels: { team: 'a' },
        annotations: { 'argocd.argoproj.io/sync-wave': '1' },
      },
      spec: { project: 'default' },
    });
    // The object read is not changed.
    expect(live.metadata.uid).toBe('u');
  });

  it('removes an annotations map left empty, and keeps `operation` on other kinds', () => {
    const secret = authoredObject({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
      data: { password: 'eA==' },
    });
    expect(secret).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { password: 'eA==' } });
    expect(authoredObject({ kind: 'Other', operation: 1 })).toEqual({ kind: 'Other', operation: 1 });
  });
});
