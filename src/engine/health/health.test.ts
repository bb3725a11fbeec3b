import { describe, expect, it } from 'vitest';
import { aggregateHealth, resourceHealth, worse } from './index.ts';

const dep = (spec: Record<string, unknown>, status: Record<string, unknown>, generation = 1) => ({
  metadata: { name: 'web', generation },
  spec,
  status: { observedGeneration: 1, ...status },
});

describe('worse', () => {
  it('orders Healthy < Progressing < Unknown < Missing < Degraded', () => {
    expect(worse('Healthy', 'Progressing')).toBe('Progressing');
    expect(worse('Degraded', 'Missing')).toBe('Degraded');
    expect(worse('Missing', 'Unknown')).toBe('Missing');
  });
});

describe('Deployment', () => {
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
  it('is Healthy when every replica is updated and available', () => {
    const live = dep({ replicas: 2 }, { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 });
    expect(resourceHealth(ref, live)).toEqual({ status: 'Healthy' });
  });
  it('is Progressing with ready counts while rolling out, and on a stale generation', () => {
    const live = dep({ replicas: 3 }, { replicas: 3, updatedReplicas: 3, readyReplicas: 1, availableReplicas: 1 });
    expect(resourceHealth(ref, live)).toEqual({ status: 'Progressing', message: 'apps/Deployment web: 1/3 ready' });
    expect(resourceHealth(ref, dep({}, {}, 2)).status).toBe('Progressing');
  });
  it('is Degraded past its progress deadline', () => {
    const live = dep(
      {},
      { conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] },
    );
    expect(resourceHealth(ref, live)).toEqual({
      status: 'Degraded',
      message: 'apps/Deployment web: 0/1 ready, progress deadline exceeded',
    });
  });
  it('is Missing when absent', () => {
    expect(resourceHealth(ref, undefined)).toEqual({ status: 'Missing', message: 'apps/Deployment web: not found' });
  });
});

describe('StatefulSet, DaemonSet, Job, Pod and other kinds', () => {
  it('StatefulSet waits for ready and updated replicas', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' };
    const base = { metadata: { name: 'db', generation: 1 }, spec: { replicas: 2 } };
    expect(resourceHealth(ref, { ...base, status: { observedGeneration: 1, readyReplicas: 1 } }).message).toBe(
      'apps/StatefulSet db: 1/2 ready',
    );
    const done = {
      observedGeneration: 1,
      readyReplicas: 2,
      updatedReplicas: 2,
      currentRevision: 'a',
      updateRevision: 'a',
    };
    expect(resourceHealth(ref, { ...base, status: done }).status).toBe('Healthy');
  });
  it('DaemonSet needs every scheduled pod updated and available', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent' };
    const status = {
      observedGeneration: 1,
      desiredNumberScheduled: 2,
      numberReady: 1,
      updatedNumberScheduled: 2,
      numberAvailable: 1,
    };
    expect(resourceHealth(ref, { metadata: { name: 'agent', generation: 1 }, status }).message).toBe(
      'apps/DaemonSet agent: 1/2 ready',
    );
  });
  it('Job: Complete Healthy, Failed Degraded, else Progressing', () => {
    const ref = { apiVersion: 'batch/v1', kind: 'Job', name: 'j' };
    const job = (conditions: Record<string, unknown>[]) => ({
      metadata: { name: 'j' },
      spec: {},
      status: { conditions },
    });
    expect(resourceHealth(ref, job([{ type: 'Complete', status: 'True' }])).status).toBe('Healthy');
    expect(resourceHealth(ref, job([{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }]))).toEqual({
      status: 'Degraded',
      message: 'batch/Job j: failed (BackoffLimitExceeded)',
    });
    expect(resourceHealth(ref, job([])).status).toBe('Progressing');
  });
  it('Pod: ready containers Healthy, crash loop and Failed Degraded, Pending Progressing', () => {
    const ref = { apiVersion: 'v1', kind: 'Pod', name: 'p' };
    const pod = (status: Record<string, unknown>) => ({ metadata: { name: 'p' }, spec: { containers: [{}] }, status });
    expect(resourceHealth(ref, pod({ phase: 'Running', containerStatuses: [{ name: 'c', ready: true }] })).status).toBe(
      'Healthy',
    );
    const crash = {
      phase: 'Running',
      containerStatuses: [{ name: 'c', ready: false, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
    };
    expect(resourceHealth(ref, pod(crash))).toEqual({
      status: 'Degraded',
      message: 'Pod p: 0/1 containers ready, c CrashLoopBackOff',
    });
    expect(resourceHealth(ref, pod({ phase: 'Failed' })).status).toBe('Degraded');
    expect(resourceHealth(ref, pod({ phase: 'Pending' }))).toEqual({
      status: 'Progressing',
      message: 'Pod p: 0/1 containers ready, Pending',
    });
  });
  it('other kinds are Healthy once they exist', () => {
    expect(resourceHealth({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c' }, { metadata: {} }).status).toBe('Healthy');
  });
});

describe('aggregateHealth', () => {
  it('takes the worse of all and names the resources that made it so', () => {
    expect(aggregateHealth([])).toEqual({ status: 'Healthy', reason: '' });
    expect(
      aggregateHealth([
        { status: 'Healthy' },
        { status: 'Progressing', message: 'apps/Deployment a: 0/1 ready' },
        { status: 'Degraded', message: 'Pod b: failed' },
      ]),
    ).toEqual({ status: 'Degraded', reason: 'Pod b: failed' });
  });
  it('names at most three causes, then how many more', () => {
    const items = [1, 2, 3, 4, 5].map((i) => ({
      status: 'Progressing' as const,
      message: `apps/Deployment d${i}: 0/1 ready`,
    }));
    expect(aggregateHealth(items).reason).toBe(
      'apps/Deployment d1: 0/1 ready; apps/Deployment d2: 0/1 ready; apps/Deployment d3: 0/1 ready; and 2 more',
    );
  });
});
