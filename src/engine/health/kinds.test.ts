import { describe, expect, it } from 'vitest';
import { resourceHealth } from './index.ts';
import type { LiveObject } from './status.ts';

const cond = (type: string, status: string, reason = '', message = '') => ({ type, status, reason, message });
const obj = (o: Partial<LiveObject> & { status?: Record<string, unknown> }): LiveObject => ({
  metadata: { name: 'x', generation: 1, ...o.metadata },
  ...(o.spec ? { spec: o.spec } : {}),
  ...(o.status ? { status: o.status } : {}),
});
const health = (apiVersion: string, kind: string, live: LiveObject) =>
  resourceHealth({ apiVersion, kind, name: 'x' }, live);

describe('generic rules (kstatus), in order of precedence', () => {
  const g = (live: LiveObject) => health('example.com/v1', 'Widget', live);
  it('no status is Healthy; deletion and an unobserved generation are Progressing', () => {
    expect(g(obj({}))).toEqual({ status: 'Healthy' });
    expect(g(obj({ metadata: { deletionTimestamp: 'now' } }))).toEqual({
      status: 'Progressing',
      message: 'example.com/Widget x: being deleted',
    });
    expect(g(obj({ metadata: { generation: 3 }, status: { observedGeneration: 2 } })).status).toBe('Progressing');
  });
  it('Stalled, Failed and Synced=False are Degraded even while Ready', () => {
    const ready = cond('Ready', 'True');
    expect(g(obj({ status: { conditions: [ready, cond('Stalled', 'True', 'BuildFailed', 'bad path')] } }))).toEqual({
      status: 'Degraded',
      message: 'example.com/Widget x: BuildFailed: bad path',
    });
    expect(g(obj({ status: { conditions: [cond('Failed', 'True')] } })).status).toBe('Degraded');
    expect(g(obj({ status: { conditions: [ready, cond('Synced', 'False', 'ReconcileError')] } })).status).toBe(
      'Degraded',
    );
  });
  it('Reconciling is Progressing; Ready=False Degraded on a failure reason, else Progressing', () => {
    expect(
      g(obj({ status: { conditions: [cond('Reconciling', 'True'), cond('Ready', 'False', 'Failed')] } })).status,
    ).toBe('Progressing');
    expect(g(obj({ status: { conditions: [cond('Ready', 'False', 'SecretSyncedError')] } })).status).toBe('Degraded');
    expect(g(obj({ status: { conditions: [cond('Ready', 'False', 'DependencyNotReady')] } })).status).toBe(
      'Progressing',
    );
    expect(g(obj({ status: { conditions: [cond('Ready', 'Unknown')] } })).status).toBe('Progressing');
    expect(g(obj({ status: { conditions: [cond('Available', 'True')] } })).status).toBe('Healthy');
  });
});

describe('built-in kinds', () => {
  it('Service LoadBalancer waits for an address; other types are Healthy', () => {
    const lb = (status: Record<string, unknown>) =>
      health('v1', 'Service', obj({ spec: { type: 'LoadBalancer' }, status }));
    expect(lb({ loadBalancer: {} }).status).toBe('Progressing');
    expect(lb({ loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } }).status).toBe('Healthy');
    expect(health('v1', 'Service', obj({ spec: { type: 'ClusterIP' } })).status).toBe('Healthy');
  });
  it('Ingress waits for an address once a class is set', () => {
    const ing = (spec: Record<string, unknown>, status = {}) =>
      health('networking.k8s.io/v1', 'Ingress', obj({ spec, status }));
    expect(ing({}).status).toBe('Healthy');
    expect(ing({ ingressClassName: 'nginx' })).toEqual({
      status: 'Progressing',
      message: 'networking.k8s.io/Ingress x: waiting for an address from ingress class nginx',
    });
    expect(ing({ ingressClassName: 'nginx' }, { loadBalancer: { ingress: [{ hostname: 'lb' }] } }).status).toBe(
      'Healthy',
    );
  });
  it('PersistentVolumeClaim: Bound, Pending, Lost', () => {
    const pvc = (phase: string) => health('v1', 'PersistentVolumeClaim', obj({ status: { phase } })).status;
    expect([pvc('Bound'), pvc('Pending'), pvc('Lost')]).toEqual(['Healthy', 'Progressing', 'Degraded']);
  });
  it('HorizontalPodAutoscaler by AbleToScale and ScalingActive', () => {
    const hpa = (...conditions: object[]) =>
      health('autoscaling/v2', 'HorizontalPodAutoscaler', obj({ status: { conditions } }));
    expect(hpa().status).toBe('Progressing');
    expect(hpa(cond('AbleToScale', 'True'), cond('ScalingActive', 'True')).status).toBe('Healthy');
    expect(hpa(cond('AbleToScale', 'True'), cond('ScalingActive', 'False', 'FailedGetResourceMetric')).status).toBe(
      'Degraded',
    );
    expect(hpa(cond('AbleToScale', 'True'), cond('ScalingActive', 'False', 'ScalingDisabled')).status).toBe('Healthy');
    expect(hpa(cond('AbleToScale', 'False', 'FailedGetScale')).status).toBe('Degraded');
  });
  it('CronJob: suspended Healthy, a last run that did not succeed Degraded', () => {
    const cj = (spec: object, status: object) =>
      health('batch/v1', 'CronJob', obj({ spec: spec as never, status: status as never }));
    expect(cj({ suspend: true }, {})).toEqual({ status: 'Healthy', message: 'batch/CronJob x: suspended' });
    const t1 = '2026-01-01T00:00:00Z';
    const t2 = '2026-01-01T00:01:00Z';
    expect(cj({}, { lastScheduleTime: t2, lastSuccessfulTime: t1 }).status).toBe('Degraded');
    expect(cj({}, { lastScheduleTime: t2, lastSuccessfulTime: t1, active: [{ name: 'j' }] }).status).toBe('Healthy');
    expect(cj({}, { lastScheduleTime: t2, lastSuccessfulTime: t2 }).status).toBe('Healthy');
  });
  it('ReplicaSet: ready replicas, ReplicaFailure', () => {
    const rs = (status: object) =>
      health('apps/v1', 'ReplicaSet', obj({ spec: { replicas: 2 }, status: { observedGeneration: 1, ...status } }));
    expect(rs({ readyReplicas: 2 }).status).toBe('Healthy');
    expect(rs({ readyReplicas: 1 }).message).toBe('apps/ReplicaSet x: 1/2 ready');
    expect(
      rs({ readyReplicas: 1, conditions: [cond('ReplicaFailure', 'True', 'FailedCreate', 'exceeded quota')] }).status,
    ).toBe('Degraded');
  });
  it('APIService Available, CRD Established and NamesAccepted, Namespace Terminating, PDB', () => {
    const api = (...conditions: object[]) =>
      health('apiregistration.k8s.io/v1', 'APIService', obj({ status: { conditions } })).status;
    expect([api(cond('Available', 'True')), api(cond('Available', 'False', 'ServiceNotFound')), api()]).toEqual([
      'Healthy',
      'Degraded',
      'Progressing',
    ]);
    const crd = (...conditions: object[]) =>
      health('apiextensions.k8s.io/v1', 'CustomResourceDefinition', obj({ status: { conditions } })).status;
    expect([crd(cond('Established', 'True')), crd(cond('NamesAccepted', 'False')), crd()]).toEqual([
      'Healthy',
      'Degraded',
      'Progressing',
    ]);
    expect(health('v1', 'Namespace', obj({ status: { phase: 'Terminating' } })).status).toBe('Progressing');
    expect(health('v1', 'Namespace', obj({ status: { phase: 'Active' } })).status).toBe('Healthy');
    const pdb = (currentHealthy: number) =>
      health(
        'policy/v1',
        'PodDisruptionBudget',
        obj({ status: { observedGeneration: 1, currentHealthy, desiredHealthy: 2 } }),
      ).status;
    expect([pdb(2), pdb(1)]).toEqual(['Healthy', 'Degraded']);
  });
});

describe('ecosystem kinds', () => {
  it('cert-manager Certificate: Ready, issuing, failed; Issuer Ready', () => {
    const cert = (...conditions: object[]) =>
      health('cert-manager.io/v1', 'Certificate', obj({ status: { conditions } }));
    expect(cert().message).toBe('cert-manager.io/Certificate x: waiting for cert-manager');
    expect(cert(cond('Ready', 'True')).status).toBe('Healthy');
    expect(cert(cond('Ready', 'False', 'DoesNotExist'), cond('Issuing', 'True', 'Issuing')).status).toBe('Progressing');
    expect(cert(cond('Ready', 'False', 'DoesNotExist'), cond('Issuing', 'False', 'Failed', 'request failed'))).toEqual({
      status: 'Degraded',
      message: 'cert-manager.io/Certificate x: Failed: request failed',
    });
    expect(
      health(
        'cert-manager.io/v1',
        'ClusterIssuer',
        obj({ status: { conditions: [cond('Ready', 'False', 'ErrInitIssuer')] } }),
      ).status,
    ).toBe('Degraded');
  });
  it('external-secrets ExternalSecret and SecretStore', () => {
    const es = (...conditions: object[]) =>
      health('external-secrets.io/v1', 'ExternalSecret', obj({ status: { conditions } })).status;
    expect([es(), es(cond('Ready', 'True')), es(cond('Ready', 'False', 'SecretSyncedError'))]).toEqual([
      'Progressing',
      'Healthy',
      'Degraded',
    ]);
    expect(
      health(
        'external-secrets.io/v1',
        'SecretStore',
        obj({ status: { conditions: [cond('Ready', 'False', 'InvalidProviderConfig')] } }),
      ).status,
    ).toBe('Degraded');
  });
  it('Argo Rollouts: phase, paused, aborted', () => {
    const ro = (spec: object, status: object) =>
      health(
        'argoproj.io/v1alpha1',
        'Rollout',
        obj({ spec: spec as never, status: { observedGeneration: '1', ...status } }),
      );
    expect(ro({}, { phase: 'Healthy' }).status).toBe('Healthy');
    expect(ro({}, { phase: 'Progressing', message: 'more replicas need to be updated' }).status).toBe('Progressing');
    expect(ro({ paused: true }, { phase: 'Paused' })).toEqual({
      status: 'Healthy',
      message: 'argoproj.io/Rollout x: paused',
    });
    expect(ro({}, { abort: true, message: 'metric failed' }).status).toBe('Degraded');
    expect(
      health(
        'argoproj.io/v1alpha1',
        'Rollout',
        obj({ metadata: { generation: 2 }, status: { observedGeneration: '1', phase: 'Healthy' } }),
      ).status,
    ).toBe('Progressing');
  });
  it('Flux: suspended, Ready, failure reasons', () => {
    const ks = (spec: object, ...conditions: object[]) =>
      health('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', obj({ spec: spec as never, status: { conditions } }));
    expect(ks({ suspend: true }).message).toBe('kustomize.toolkit.fluxcd.io/Kustomization x: suspended');
    expect(ks({}, cond('Ready', 'True')).status).toBe('Healthy');
    expect(ks({}, cond('Ready', 'False', 'BuildFailed')).status).toBe('Degraded');
    expect(
      health(
        'helm.toolkit.fluxcd.io/v2',
        'HelmRelease',
        obj({ status: { conditions: [cond('Ready', 'False', 'Progressing')] } }),
      ).status,
    ).toBe('Progressing');
  });
  it('Crossplane: Ready and Synced; packages Installed and Healthy', () => {
    const mr = (...conditions: object[]) =>
      health('s3.aws.upbound.io/v1beta1', 'Bucket', obj({ status: { conditions } })).status;
    expect([
      mr(cond('Ready', 'True'), cond('Synced', 'True')),
      mr(cond('Ready', 'False', 'Creating'), cond('Synced', 'True')),
      mr(cond('Synced', 'False', 'ReconcileError')),
    ]).toEqual(['Healthy', 'Progressing', 'Degraded']);
    const pkg = (...conditions: object[]) =>
      health('pkg.crossplane.io/v1', 'Provider', obj({ status: { conditions } })).status;
    expect([
      pkg(cond('Installed', 'True'), cond('Healthy', 'True')),
      pkg(cond('Installed', 'True'), cond('Healthy', 'False')),
    ]).toEqual(['Healthy', 'Degraded']);
  });
  it('Prometheus Operator: Available and Reconciled; configuration bindings', () => {
    const prom = (...conditions: object[]) =>
      health('monitoring.coreos.com/v1', 'Prometheus', obj({ status: { conditions } })).status;
    expect([
      prom(cond('Available', 'True'), cond('Reconciled', 'True')),
      prom(cond('Available', 'Degraded')),
      prom(),
    ]).toEqual(['Healthy', 'Degraded', 'Progressing']);
    const sm = health(
      'monitoring.coreos.com/v1',
      'ServiceMonitor',
      obj({
        status: { bindings: [{ name: 'main', conditions: [cond('Accepted', 'False', 'InvalidConfiguration')] }] },
      }),
    );
    expect(sm.status).toBe('Degraded');
  });
});
