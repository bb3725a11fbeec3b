import { describe, expect, it } from 'vitest';
import type { AppResource, AppStatus } from './app-schema.ts';
import { causesOf, edges, factsOf, healthyRevisionOf, recovered, syncWasAsked } from './observation.ts';
import { proposeRemediations } from './remediation-plan.ts';

function app(status: AppStatus, spec: Partial<AppResource['spec']> = {}): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'web', namespace: 'org-acme', uid: 'u1', generation: 3 },
    spec: { source: { type: 'Git', git: { repoURL: 'https://h/r.git' } }, destination: { namespace: 'prod' }, ...spec },
    status: { observedGeneration: 3, ...status },
  };
}
const cond = (
  type: 'Ready' | 'SyncError' | 'Stalled',
  status: 'True' | 'False',
  reason: string,
  message = '',
  lastTransitionTime?: string,
) => ({ type, status, reason, message, ...(lastTransitionTime ? { lastTransitionTime } : {}) });
const automated = { syncPolicy: { automated: true } };
const healthy = app({
  syncStatus: 'Synced',
  healthStatus: 'Healthy',
  revision: 'c1',
  lastSyncAt: '2026-11-21T06:00:00Z',
  conditions: [cond('SyncError', 'False', 'NoError')],
});

describe('incident detector observations', () => {
  it('makes the first observation a baseline: no edges', () => {
    expect(edges(undefined, healthy)).toEqual([]);
  });

  it('tells a sync success, a turn to Degraded and the recovery once each', () => {
    const synced = app({ ...healthy.status, revision: 'c2', lastSyncAt: '2026-11-21T06:05:00Z' });
    expect(edges(factsOf(healthy), synced).map((e) => e.type)).toEqual(['sync.succeeded']);
    const degraded = app({ ...synced.status, healthStatus: 'Degraded', healthReason: 'Deployment web: 0/1 ready' });
    expect(edges(factsOf(synced), degraded)).toEqual([
      { type: 'health.degraded', data: { reason: 'Deployment web: 0/1 ready', revision: 'c2' } },
    ]);
    expect(edges(factsOf(degraded), degraded)).toEqual([]);
    expect(edges(factsOf(degraded), synced).map((e) => e.type)).toEqual(['health.recovered']);
  });

  it('tells a failed sync when SyncError turns True, and a failed operation with its id', () => {
    const failing = app(
      {
        ...healthy.status,
        syncStatus: 'OutOfSync',
        observedRevision: 'c9',
        conditions: [cond('SyncError', 'True', 'RenderFailed', 'm/bad.yaml: missing apiVersion')],
      },
      automated,
    );
    expect(edges(factsOf(healthy), failing)).toEqual([
      {
        type: 'sync.failed',
        data: { reason: 'RenderFailed', message: 'm/bad.yaml: missing apiVersion', revision: 'c9' },
      },
    ]);
    // Still failing: nothing new.
    expect(edges(factsOf(failing), failing)).toEqual([]);
    const opFailed = app(
      {
        ...failing.status,
        operationState: {
          kind: 'Rollback',
          id: 'op1',
          initiatedAt: 't',
          phase: 'Failed',
          revision: 'c0',
          message: 'm',
        },
      },
      automated,
    );
    expect(edges(factsOf(failing), opFailed).map((e) => [e.type, e.data['operation_id'] ?? e.data['id']])).toEqual([
      ['operation.finished', 'op1'],
      ['sync.failed', 'op1'],
    ]);
  });

  it('names causes: Degraded, Stalled, or else a failing sync', () => {
    expect(causesOf(healthy)).toEqual([]);
    expect(causesOf(app({ healthStatus: 'Degraded' }))).toEqual(['Degraded']);
    const stalled = app({
      healthStatus: 'Missing',
      conditions: [cond('SyncError', 'True', 'SourceFailed'), cond('Stalled', 'True', 'SourceFailed')],
    });
    expect(causesOf(stalled)).toEqual(['Stalled']);
    expect(
      causesOf(app({ healthStatus: 'Degraded', conditions: [cond('SyncError', 'True', 'ApplyFailed')] }, automated)),
    ).toEqual(['Degraded', 'SyncFailed']);
  });

  it('tells no failed sync and names no cause for a failure nobody asked for (no operation, automated off)', () => {
    // An image App waiting for its first promote: the tag does not exist yet, so every observing reconcile fails.
    const waiting = app({
      syncStatus: 'Unknown',
      healthStatus: 'Missing',
      conditions: [cond('SyncError', 'True', 'SourceFailed', 'tag 3.0 not found', '2026-11-21T06:00:00.000Z')],
    });
    const before = app({ syncStatus: 'Unknown', healthStatus: 'Missing', conditions: [] });
    expect(syncWasAsked(waiting)).toBe(false);
    expect(causesOf(waiting)).toEqual([]);
    expect(edges(factsOf(before), waiting)).toEqual([]);
    // The same failure on an automated App is a failed sync.
    const auto = app(waiting.status ?? {}, automated);
    expect(causesOf(auto)).toEqual(['SyncFailed']);
    expect(edges(factsOf(before), auto).map((e) => e.type)).toEqual(['sync.failed']);
    // Someone asks for a sync and it fails: the failure is the operation's (same status write, same time).
    const asked = app({
      ...waiting.status,
      operationState: {
        kind: 'Sync',
        id: 'op2',
        initiatedAt: '2026-11-21T06:01:00.000Z',
        phase: 'Failed',
        message: 'tag 3.0 not found',
        finishedAt: '2026-11-21T06:01:01.000Z',
      },
    });
    expect(causesOf(asked)).toEqual(['SyncFailed']);
    expect(edges(factsOf(waiting), asked).map((e) => e.type)).toEqual(['operation.finished', 'sync.failed']);
    // That operation long over and the App recovered since, a new unrequested failure is again none.
    const later = app({
      ...asked.status,
      conditions: [cond('SyncError', 'True', 'SourceFailed', 'tag 3.0 not found', '2026-11-21T07:00:00.000Z')],
    });
    expect(causesOf(later)).toEqual([]);
  });

  it('counts an App recovered when Healthy with no failing sync, OutOfSync or not', () => {
    expect(recovered(healthy)).toBe(true);
    expect(recovered(app({ ...healthy.status, syncStatus: 'OutOfSync' }))).toBe(true);
    expect(recovered(app({ ...healthy.status, syncStatus: 'Syncing' }))).toBe(false);
    expect(recovered(app({ ...healthy.status, conditions: [cond('SyncError', 'True', 'ApplyFailed')] }))).toBe(false);
    expect(healthyRevisionOf(healthy)).toBe('c1');
    expect(healthyRevisionOf(app({ ...healthy.status, healthStatus: 'Progressing' }))).toBeUndefined();
  });
});

describe('remediation proposals', () => {
  const broken = app({ healthStatus: 'Degraded', revision: 'c2', previousRevisions: ['c1'] });

  it('proposes a rollback to the last healthy revision and a restart for Degraded', () => {
    expect(proposeRemediations(broken, 'Degraded', 'c1').map((p) => [p.action, p.revision, p.pauseAutomated])).toEqual([
      ['rollback', 'c1', false],
      ['restart', undefined, false],
    ]);
  });

  it('pauses automated sync with the rollback of an automated App, so it holds', () => {
    const automated = app(broken.status ?? {}, { syncPolicy: { automated: true } });
    expect(proposeRemediations(automated, 'Degraded', 'c1')[0]).toMatchObject({
      action: 'rollback',
      pauseAutomated: true,
    });
  });

  it('proposes no rollback without a healthy revision in the history, and nothing for a stall', () => {
    expect(proposeRemediations(broken, 'SyncFailed', '').map((p) => p.action)).toEqual(['resync']);
    expect(proposeRemediations(broken, 'Degraded', 'c7').map((p) => p.action)).toEqual(['restart']);
    expect(proposeRemediations(broken, 'Degraded', 'c2').map((p) => p.action)).toEqual(['restart']);
    expect(proposeRemediations(broken, 'Stalled', 'c1')).toEqual([]);
  });

  it('proposes unfreezing first when the App is frozen', () => {
    const frozen = app(broken.status ?? {}, { freeze: true });
    expect(proposeRemediations(frozen, 'Degraded', 'c1').map((p) => p.action)).toEqual([
      'unfreeze',
      'rollback',
      'restart',
    ]);
  });
});
