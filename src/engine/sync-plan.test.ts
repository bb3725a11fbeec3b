import { describe, expect, it } from 'vitest';
import type { AnyObject } from '../kube/index.ts';
import { prepareObjects } from './desired.ts';
import { appliedObjects, isStaged, planSync, waveOf } from './sync-plan.ts';

const obj = (kind: string, name: string, annotations?: Record<string, string>, apiVersion = 'v1'): AnyObject => ({
  apiVersion,
  kind,
  metadata: { name, ...(annotations ? { annotations } : {}) },
});
const names = (list: AnyObject[]) => list.map((o) => `${o.kind}/${o.metadata.name}`);
const app = { namespace: 'org', name: 'a' };

describe('planSync', () => {
  it('without annotations: one wave 0 of everything, no hooks, not staged', () => {
    const plan = planSync([obj('ConfigMap', 'a'), obj('Service', 'b')]);
    expect(plan.phases.Sync).toEqual([{ wave: 0, objects: plan.objects, hooks: [] }]);
    expect(plan.phases.PreSync).toEqual([]);
    expect(isStaged(plan)).toBe(false);
  });

  it('orders waves lowest first, keeping the apply ranks (Namespaces, CRDs) within a wave', () => {
    const prepared = prepareObjects(
      [
        obj('Deployment', 'web', { 'cd.svc.space/sync-wave': '1' }, 'apps/v1'),
        obj('ConfigMap', 'settings', { 'cd.svc.space/sync-wave': '-1' }),
        obj('Service', 'web'),
        obj('CustomResourceDefinition', 'x', { 'cd.svc.space/sync-wave': '1' }, 'apiextensions.k8s.io/v1'),
        obj('Namespace', 'ns'),
      ],
      app,
    );
    const plan = planSync(prepared);
    expect(plan.phases.Sync.map((w) => [w.wave, names(w.objects)])).toEqual([
      [-1, ['ConfigMap/settings']],
      [0, ['Namespace/ns', 'Service/web']],
      [1, ['CustomResourceDefinition/x', 'Deployment/web']],
    ]);
    expect(isStaged(plan)).toBe(true);
  });

  it('takes hooks out of the applied objects, by phase and wave, default delete policy BeforeHookCreation', () => {
    const plan = planSync([
      obj('Job', 'migrate', { 'cd.svc.space/hook': 'PreSync' }, 'batch/v1'),
      obj('Job', 'seed', { 'cd.svc.space/hook': 'PreSync', 'cd.svc.space/sync-wave': '-2' }, 'batch/v1'),
      obj('Deployment', 'web', undefined, 'apps/v1'),
      obj('Job', 'smoke', { 'cd.svc.space/hook': 'PostSync', 'cd.svc.space/hook-delete-policy': 'HookSucceeded' }),
      obj('Pod', 'notify', { 'cd.svc.space/hook': 'SyncFail' }),
      obj('Job', 'inline', { 'cd.svc.space/hook': 'Sync', 'cd.svc.space/sync-wave': '3' }, 'batch/v1'),
    ]);
    expect(names(plan.objects)).toEqual(['Deployment/web']);
    expect(appliedObjects(plan.objects)).toEqual(plan.objects);
    expect(plan.phases.PreSync.map((w) => [w.wave, w.hooks.map((h) => h.object.metadata.name)])).toEqual([
      [-2, ['seed']],
      [0, ['migrate']],
    ]);
    expect(plan.phases.PreSync[1]?.hooks[0]?.deletePolicies).toEqual(['BeforeHookCreation']);
    expect(plan.phases.Sync.map((w) => [w.wave, names(w.objects), w.hooks.map((h) => h.object.metadata.name)])).toEqual(
      [
        [0, ['Deployment/web'], []],
        [3, [], ['inline']],
      ],
    );
    expect(plan.phases.PostSync[0]?.hooks[0]?.deletePolicies).toEqual(['HookSucceeded']);
    expect(plan.phases.SyncFail[0]?.hooks[0]?.object.kind).toBe('Pod');
  });

  it('a hook of several phases runs in each; Skip is never applied; PostDelete hooks wait for the deletion', () => {
    const plan = planSync([
      obj('ConfigMap', 'both', { 'cd.svc.space/hook': 'PreSync, PostSync' }),
      obj('ConfigMap', 'skipped', { 'cd.svc.space/hook': 'Skip' }),
      obj('Job', 'cleanup', { 'argocd.argoproj.io/hook': 'PostDelete', 'cd.svc.space/sync-wave': '2' }),
      obj('Job', 'first', { 'cd.svc.space/hook': 'PostDelete' }),
    ]);
    expect(plan.phases.PreSync[0]?.hooks.map((h) => h.object.metadata.name)).toEqual(['both']);
    expect(plan.phases.PostSync[0]?.hooks.map((h) => h.object.metadata.name)).toEqual(['both']);
    expect(names(plan.skipped)).toEqual(['ConfigMap/skipped']);
    expect(plan.objects).toEqual([]);
    expect(plan.postDelete.map((w) => [w.wave, w.hooks.map((h) => `${h.phase} ${h.object.metadata.name}`)])).toEqual([
      [0, ['PostDelete first']],
      [2, ['PostDelete cleanup']],
    ]);
    // A PostDelete hook does not make a sync staged, and is in no sync phase.
    expect(isStaged(planSync([obj('Job', 'first', { 'cd.svc.space/hook': 'PostDelete' })]))).toBe(false);
  });

  it("reads Argo CD's annotations when svc's are absent; svc's win", () => {
    const plan = planSync([
      obj('Job', 'migrate', {
        'argocd.argoproj.io/hook': 'PreSync',
        'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded,HookFailed',
        'argocd.argoproj.io/sync-wave': '5',
      }),
      obj('ConfigMap', 'c', { 'argocd.argoproj.io/sync-wave': '2', 'cd.svc.space/sync-wave': '-3' }),
    ]);
    expect(plan.phases.PreSync[0]).toMatchObject({ wave: 5 });
    expect(plan.phases.PreSync[0]?.hooks[0]?.deletePolicies).toEqual(['HookSucceeded', 'HookFailed']);
    expect(plan.phases.Sync.map((w) => w.wave)).toEqual([-3]);
  });

  it("maps Helm's hooks: pre-install/pre-upgrade → PreSync, post-* → PostSync, post-delete → PostDelete, weight → wave, other events skipped", () => {
    const plan = planSync([
      obj('Job', 'migrate', {
        'helm.sh/hook': 'pre-install,pre-upgrade',
        'helm.sh/hook-weight': '-5',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      }),
      obj('Job', 'smoke', { 'helm.sh/hook': 'post-install,post-upgrade' }),
      obj('Pod', 'test', { 'helm.sh/hook': 'test' }),
      obj('Job', 'teardown', { 'helm.sh/hook': 'pre-delete' }),
      obj('Job', 'cleanup', { 'helm.sh/hook': 'post-delete' }),
      obj('CustomResourceDefinition', 'old', { 'helm.sh/hook': 'crd-install' }),
      // A weight on an object that is not a hook means nothing to Helm: wave 0.
      obj('ConfigMap', 'plain', { 'helm.sh/hook-weight': '7' }),
    ]);
    expect(plan.phases.PreSync).toHaveLength(1);
    expect(plan.phases.PreSync[0]).toMatchObject({ wave: -5 });
    expect(plan.phases.PreSync[0]?.hooks[0]?.deletePolicies).toEqual(['BeforeHookCreation', 'HookSucceeded']);
    expect(plan.phases.PostSync[0]?.hooks.map((h) => h.object.metadata.name)).toEqual(['smoke']);
    expect(names(plan.skipped)).toEqual(['Pod/test', 'Job/teardown']);
    expect(plan.postDelete[0]?.hooks.map((h) => h.object.metadata.name)).toEqual(['cleanup']);
    expect(names(plan.objects)).toEqual(['CustomResourceDefinition/old', 'ConfigMap/plain']);
    expect(plan.phases.Sync.map((w) => w.wave)).toEqual([0]);
  });

  it('refuses an annotation it cannot read, naming the object', () => {
    expect(() => planSync([obj('ConfigMap', 'c', { 'cd.svc.space/sync-wave': 'first' })])).toThrow(
      /ConfigMap c: cd.svc.space\/sync-wave "first" is not an integer/,
    );
    expect(() => planSync([obj('Job', 'j', { 'cd.svc.space/hook': 'PreInstall' })])).toThrow(/hook "PreInstall"/);
    expect(() =>
      planSync([obj('Job', 'j', { 'cd.svc.space/hook': 'PreSync', 'cd.svc.space/hook-delete-policy': 'Never' })]),
    ).toThrow(/delete policy "Never"/);
  });

  it('waveOf: a signed integer, with spaces; 0 without an annotation', () => {
    expect(waveOf(obj('ConfigMap', 'c', { 'cd.svc.space/sync-wave': ' -10 ' }))).toBe(-10);
    expect(waveOf(obj('ConfigMap', 'c', { 'cd.svc.space/sync-wave': '+3' }))).toBe(3);
    expect(waveOf(obj('ConfigMap', 'c'))).toBe(0);
  });
});
