import { describe, expect, it } from 'vitest';
import {
  IMPORT_ORIGIN_ANNOTATION,
  importOriginOf,
  importPending,
  letGoPatch,
  letGoProblem,
  oldManagersOf,
  restorePatch,
} from './take-over.ts';

const application = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: {
    name: 'guestbook',
    namespace: 'argocd',
    resourceVersion: '42',
    finalizers: ['resources-finalizer.argocd.argoproj.io/foreground', 'example.com/keep'],
  },
  spec: { syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ['CreateNamespace=true'] } },
};

describe('take-over', () => {
  it("removes only Argo CD's resources finalizers and the automated sync, and restores both", () => {
    const { patch, restore } = letGoPatch(application);
    expect(patch).toEqual({
      metadata: { resourceVersion: '42', finalizers: ['example.com/keep'] },
      spec: { syncPolicy: { automated: null } },
    });
    expect(restorePatch(restore)).toEqual({
      metadata: { finalizers: application.metadata.finalizers },
      spec: { syncPolicy: { automated: { prune: true, selfHeal: true } } },
    });
  });

  it('suspends a Flux object and restores its suspend as it was (absent: null removes it)', () => {
    const kustomization = {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'apps', namespace: 'flux-system', resourceVersion: '7' },
      spec: { interval: '10m' },
    };
    const { patch, restore } = letGoPatch(kustomization);
    expect(patch).toEqual({ metadata: { resourceVersion: '7' }, spec: { suspend: true } });
    expect(restorePatch(restore)).toEqual({ spec: { suspend: null } });
  });

  it('knows which kinds have a controller to tell', () => {
    expect(letGoProblem({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Application' })).toBeUndefined();
    expect(letGoProblem({ apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease' })).toBeUndefined();
    expect(letGoProblem({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' })).toMatch(
      /no controller/,
    );
    expect(letGoProblem({ apiVersion: 'argoproj.io/v1alpha1', kind: 'ApplicationSet' })).toMatch(/no controller/);
  });

  it('reads the pending marker and the origin; a foreign annotation is no origin', () => {
    expect(importPending({ 'cd.svc.space/import': 'pending' })).toBe(true);
    expect(importPending({})).toBe(false);
    const origin = { apiVersion: 'v1', kind: 'Application', name: 'a', cluster: '' };
    expect(importOriginOf({ [IMPORT_ORIGIN_ANNOTATION]: JSON.stringify(origin) })).toEqual(origin);
    expect(importOriginOf({ [IMPORT_ORIGIN_ANNOTATION]: 'not json' })).toBeUndefined();
    expect(importOriginOf({ [IMPORT_ORIGIN_ANNOTATION]: '{}' })).toBeUndefined();
  });

  it("names the old controllers' field managers", () => {
    expect(oldManagersOf({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Application' })).toEqual(['argocd-controller']);
    expect(oldManagersOf({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization' })).toEqual([
      'kustomize-controller',
    ]);
    expect(oldManagersOf({ apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease' })).toEqual([
      'helm-controller',
    ]);
    expect(oldManagersOf({ apiVersion: 'argoproj.io/v1alpha1', kind: 'ApplicationSet' })).toEqual([]);
    expect(oldManagersOf(undefined)).toEqual([]);
  });
});
