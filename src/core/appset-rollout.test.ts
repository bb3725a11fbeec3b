import { describe, expect, it } from 'vitest';
import type { AppResource, AppStatus } from './app-schema.ts';
import { groupBySteps, maxUnavailableOf, planRollout, rolloutProblems, stepMatches } from './appset-rollout.ts';
import type { RolloutStep } from './appset-schema.ts';

const NEW = 'b'.repeat(40);
const OLD = 'a'.repeat(40);

function app(name: string, env: string | undefined, status?: Partial<AppStatus>): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name, namespace: 'org-a', generation: 1, ...(env ? { labels: { env } } : {}) },
    spec: { source: { type: 'Git', git: { repoURL: 'https://x/r.git' } }, destination: { namespace: name } },
    ...(status ? { status: status as AppStatus } : {}),
  } as AppResource;
}
const done = { syncStatus: 'Synced', healthStatus: 'Healthy', revision: NEW, observedRevision: NEW } as const;
const outOfSync = { syncStatus: 'OutOfSync', healthStatus: 'Healthy', revision: OLD, observedRevision: NEW } as const;
const step = (values: string[], maxUnavailable?: number | string, operator: 'In' | 'NotIn' = 'In'): RolloutStep => ({
  matchExpressions: [{ key: 'env', operator, values }],
  ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
});
const steps = [step(['staging']), step(['prod'], 1)];

describe('rolling sync plan', () => {
  it('matches In and NotIn, an absent label being NotIn', () => {
    expect(stepMatches(step(['prod']), { env: 'prod' })).toBe(true);
    expect(stepMatches(step(['prod']), {})).toBe(false);
    expect(stepMatches(step(['prod'], undefined, 'NotIn'), {})).toBe(true);
    expect(stepMatches(step(['prod'], undefined, 'NotIn'), { env: 'prod' })).toBe(false);
  });

  it('puts each App in its first matching step and the unmatched last', () => {
    const groups = groupBySteps(
      [step(['staging', 'qa']), step(['staging', 'prod'])],
      [app('p', 'prod'), app('s', 'staging'), app('x', undefined)],
    );
    expect(groups.map((g) => [g.apps.map((a) => a.metadata.name), g.unmatched])).toEqual([
      [['s'], false],
      [['p'], false],
      [['x'], true],
    ]);
  });

  it('maxUnavailable: a count, a percent of the step rounded down and at least 1, the whole step when absent', () => {
    expect(maxUnavailableOf(undefined, 4)).toBe(4);
    expect(maxUnavailableOf(2, 4)).toBe(2);
    expect(maxUnavailableOf('3', 4)).toBe(3);
    expect(maxUnavailableOf('50%', 5)).toBe(2);
    expect(maxUnavailableOf('10%', 3)).toBe(1);
    expect(rolloutProblems([step(['a'], 0), step(['a'], '0%'), step(['a'], 'x'), step(['a'], '100%')])).toEqual([
      expect.stringContaining('steps[0].maxUnavailable'),
      expect.stringContaining('steps[1].maxUnavailable'),
      expect.stringContaining('steps[2].maxUnavailable'),
    ]);
  });

  it('syncs the first step first, prod waiting', () => {
    const plan = planRollout(steps, [app('s1', 'staging', outOfSync), app('p1', 'prod', outOfSync)]);
    expect(plan.sync).toEqual(['s1']);
    expect(plan.status).toEqual({
      currentStep: 1,
      steps: [
        { step: 1, state: 'Progressing', apps: ['s1'] },
        { step: 2, state: 'Pending', apps: ['p1'] },
      ],
    });
  });

  it('a step still progressing (synced, not Healthy yet, or at an older revision) holds the next one', () => {
    for (const s of [
      { ...done, healthStatus: 'Progressing' as const },
      { ...done, revision: OLD },
      { syncStatus: 'Syncing' as const },
    ]) {
      const plan = planRollout(steps, [app('s1', 'staging', s), app('p1', 'prod', outOfSync)]);
      expect(plan.sync).toEqual([]);
      expect(plan.status.currentStep).toBe(1);
    }
  });

  it('moves to the next step once every App of the step is Synced and Healthy at the new revision', () => {
    const plan = planRollout(steps, [
      app('s1', 'staging', done),
      app('p1', 'prod', outOfSync),
      app('p2', 'prod', outOfSync),
    ]);
    expect(plan.sync).toEqual(['p1']); // maxUnavailable 1
    expect(plan.status.steps.map((s) => s.state)).toEqual(['Done', 'Progressing']);
    const next = planRollout(steps, [
      app('s1', 'staging', done),
      app('p1', 'prod', { ...done, healthStatus: 'Progressing' }),
      app('p2', 'prod', outOfSync),
    ]);
    expect(next.sync).toEqual([]); // p1 is unavailable: no room
    const last = planRollout(steps, [
      app('s1', 'staging', done),
      app('p1', 'prod', done),
      app('p2', 'prod', outOfSync),
    ]);
    expect(last.sync).toEqual(['p2']);
  });

  it('an earlier step that has not polled the revision a later App sees is not done yet', () => {
    // staging is Synced and Healthy at OLD and has not seen NEW yet; prod (same repository and branch) has.
    const stale = { syncStatus: 'Synced', healthStatus: 'Healthy', revision: OLD, observedRevision: OLD } as const;
    const plan = planRollout(steps, [app('s1', 'staging', stale), app('p1', 'prod', outOfSync)]);
    expect(plan.sync).toEqual([]);
    expect(plan.status.currentStep).toBe(1);
  });

  it('a Degraded App stops the rollout at its step; later steps stay Pending', () => {
    const degraded = { ...done, healthStatus: 'Degraded' as const, healthReason: 'apps/Deployment web: 0/1 ready' };
    const plan = planRollout(steps, [app('s1', 'staging', degraded), app('p1', 'prod', outOfSync)]);
    expect(plan.sync).toEqual([]);
    expect(plan.status).toMatchObject({
      currentStep: 1,
      steps: [{ state: 'Stopped' }, { state: 'Pending' }],
      stopped: { step: 1, app: 's1', reason: 'Degraded: apps/Deployment web: 0/1 ready' },
    });
    // A Degraded App awaiting a sync is synced: the new revision may be the fix.
    const fix = planRollout(steps, [
      app('s1', 'staging', { ...outOfSync, healthStatus: 'Degraded' }),
      app('p1', 'prod', outOfSync),
    ]);
    expect(fix.sync).toEqual(['s1']);
    expect(fix.status.stopped).toBeUndefined();
  });

  it('a sync that failed at the newest revision stops the rollout; a new revision is synced again', () => {
    const failedAt = (revision?: string) => ({
      ...outOfSync,
      operationState: {
        kind: 'Sync' as const,
        phase: 'Failed' as const,
        ...(revision ? { revision } : {}),
        message: 'apply apps/v1/Deployment web: spec.replicas: Invalid value: -1',
      },
    });
    const plan = planRollout(steps, [app('s1', 'staging', failedAt(NEW)), app('p1', 'prod', outOfSync)]);
    expect(plan.sync).toEqual([]);
    expect(plan.status).toMatchObject({
      currentStep: 1,
      steps: [{ state: 'Stopped' }, { state: 'Pending' }],
      stopped: { step: 1, app: 's1', reason: expect.stringMatching(/^SyncFailed: apply apps\/v1\/Deployment web/) },
    });
    // Failed at an older revision (a fix was pushed since), or with no revision to place it: asked again.
    for (const s of [failedAt(OLD), failedAt(undefined)]) {
      const again = planRollout(steps, [app('s1', 'staging', s), app('p1', 'prod', outOfSync)]);
      expect(again.sync).toEqual(['s1']);
      expect(again.status.stopped).toBeUndefined();
    }
    // A failed sync wins over Degraded as the reason (it is what stopped the step's revision).
    const both = planRollout(steps, [app('s1', 'staging', { ...failedAt(NEW), healthStatus: 'Degraded' })]);
    expect(both.status.stopped?.reason).toMatch(/^SyncFailed/);
  });

  it('Apps no step selects go last; all Done is step 0', () => {
    const plan = planRollout(steps, [app('s1', 'staging', done), app('p1', 'prod', done), app('x', 'dev', outOfSync)]);
    expect(plan.sync).toEqual(['x']);
    expect(plan.status.steps[2]).toEqual({ step: 3, state: 'Progressing', apps: ['x'], unmatched: true });
    const all = planRollout(steps, [app('s1', 'staging', done), app('p1', 'prod', done)]);
    expect(all.status.currentStep).toBe(0);
    expect(all.sync).toEqual([]);
  });

  it('an App with an operation pending is neither synced again nor rolled out', () => {
    const requested = app('s1', 'staging', outOfSync);
    requested.spec.operation = { kind: 'Sync', initiatedAt: '2026-11-27T00:00:00Z' };
    const plan = planRollout(steps, [requested, app('p1', 'prod', outOfSync)]);
    expect(plan.sync).toEqual([]);
    expect(plan.status.currentStep).toBe(1);
  });
});
