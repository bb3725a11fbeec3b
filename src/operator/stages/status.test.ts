import { describe, expect, it } from 'vitest';
import { STAGES } from '../stage-error.ts';
import { type Failure, nextStatus, REASON_BY_STAGE } from './status.ts';

const now = '2026-11-21T06:00:00Z';
const renderFailed = (message: string): Failure => ({ stage: 'render', hint: 'wait', message });
const healthy = { status: 'Healthy' as const, reason: '', resources: [] };

describe('nextStatus', () => {
  it('keeps the last healthy revision, and since when the applied revision is Degraded (auto-rollback reads both)', () => {
    const later = '2026-11-21T06:05:00Z';
    const degraded = { status: 'Degraded' as const, reason: 'x', resources: [] };
    let s = nextStatus(
      undefined,
      { now, syncStatus: 'Synced', applied: { revision: 'r1', objectHash: 'h' }, health: healthy },
      5,
    );
    expect(s).toMatchObject({ healthyRevision: 'r1' });
    expect(s.degradedSince).toBeUndefined();
    s = nextStatus(
      s,
      { now, syncStatus: 'Synced', applied: { revision: 'r2', objectHash: 'h2' }, health: degraded },
      5,
    );
    expect(s).toMatchObject({ healthyRevision: 'r1', degradedSince: now });
    s = nextStatus(s, { now: later, syncStatus: 'Synced', health: degraded }, 5);
    expect(s).toMatchObject({ healthyRevision: 'r1', degradedSince: now });
    // Healthy while the reconcile failed is not a healthy revision.
    const failedHealthy = nextStatus(
      s,
      { now: later, syncStatus: 'OutOfSync', health: healthy, error: renderFailed('x') },
      5,
    );
    expect(failedHealthy.healthyRevision).toBe('r1');
    expect(failedHealthy.degradedSince).toBeUndefined();
    s = nextStatus(s, { now: later, syncStatus: 'Synced', health: healthy }, 5);
    expect(s).toMatchObject({ healthyRevision: 'r2' });
    expect(s.degradedSince).toBeUndefined();
  });

  it('moves revision only on a successful apply and keeps a bounded, newest-first history', () => {
    let s = nextStatus(undefined, { now, syncStatus: 'Synced', applied: { revision: 'r1', objectHash: 'h1' } }, 2);
    expect(s).toMatchObject({ revision: 'r1', objectHash: 'h1', lastSyncAt: now });
    expect(s.previousRevisions).toBeUndefined();
    s = nextStatus(s, { now, syncStatus: 'Synced', applied: { revision: 'r2', objectHash: 'h2' } }, 2);
    s = nextStatus(s, { now, syncStatus: 'Synced', applied: { revision: 'r3', objectHash: 'h3' } }, 2);
    s = nextStatus(s, { now, syncStatus: 'Synced', applied: { revision: 'r4', objectHash: 'h4' } }, 2);
    expect(s.previousRevisions).toEqual(['r3', 'r2']);
    const failed = nextStatus(s, { now, syncStatus: 'OutOfSync', error: renderFailed('boom') }, 2);
    expect(failed.revision).toBe('r4');
    expect(failed.previousRevisions).toEqual(['r3', 'r2']);
  });

  it('remembers the tag and image of every image digest still in the history, and the url of the last apply', () => {
    const origin = (tag: string) => ({ tag, image: 'r.example/web' });
    const apply = (revision: string, tag: string, url?: string) => ({
      revision,
      objectHash: revision,
      origin: origin(tag),
      ...(url ? { url } : {}),
    });
    let s = nextStatus(undefined, { now, syncStatus: 'Synced', applied: apply('d1', '1', 'https://w.example') }, 2);
    expect(s).toMatchObject({ url: 'https://w.example', revisionTags: [{ revision: 'd1', ...origin('1') }] });
    s = nextStatus(s, { now, syncStatus: 'Synced', applied: apply('d2', '2') }, 2);
    expect(s.url).toBeUndefined();
    s = nextStatus(s, { now, syncStatus: 'Synced', applied: apply('d3', '3') }, 2);
    s = nextStatus(s, { now, syncStatus: 'Synced', applied: apply('d4', '4') }, 2);
    expect(s.previousRevisions).toEqual(['d3', 'd2']);
    expect(s.revisionTags?.map((e) => `${e.revision}:${e.tag}`)).toEqual(['d4:4', 'd3:3', 'd2:2']);
    // A rollback to d2 keeps it once, first.
    s = nextStatus(s, { now, syncStatus: 'Synced', applied: apply('d2', '2') }, 2);
    expect(s.revisionTags?.map((e) => e.revision)).toEqual(['d2', 'd4', 'd3']);
    // Git applies carry no origin and leave the field alone.
    expect(
      nextStatus(undefined, { now, syncStatus: 'Synced', applied: { revision: 'c1', objectHash: 'h' } }, 2)
        .revisionTags,
    ).toBeUndefined();
  });

  it('sets Ready and SyncError conditions, keeping transition times while unchanged', () => {
    const applied = { revision: 'r1', objectHash: 'h1' };
    const a = nextStatus(undefined, { now, syncStatus: 'Synced', health: healthy, applied }, 50);
    expect(a.conditions).toEqual([
      { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: now },
      { type: 'SyncError', status: 'False', reason: 'NoError', message: '', lastTransitionTime: now },
    ]);
    const later = '2026-11-21T07:00:00Z';
    const b = nextStatus(a, { now: later, syncStatus: 'OutOfSync', error: renderFailed('m/a.yaml: bad') }, 50);
    expect(b.conditions?.[0]).toMatchObject({ status: 'False', reason: 'OutOfSync', lastTransitionTime: later });
    expect(b.conditions?.[1]).toMatchObject({
      status: 'True',
      reason: 'RenderFailed',
      message: 'm/a.yaml: bad',
      lastTransitionTime: later,
    });
    const c = nextStatus(
      b,
      { now: '2026-11-21T08:00:00Z', syncStatus: 'OutOfSync', error: renderFailed('m/a.yaml: bad') },
      50,
    );
    expect(c.conditions?.[1]?.lastTransitionTime).toBe(later);
  });

  it.each(STAGES)('names the failing stage %s in the SyncError reason', (stage) => {
    const s = nextStatus(undefined, { now, syncStatus: 'Unknown', error: { stage, hint: 'retry', message: 'm' } }, 50);
    expect(s.conditions?.find((c) => c.type === 'SyncError')).toMatchObject({
      status: 'True',
      reason: REASON_BY_STAGE[stage],
      message: 'm',
    });
    expect(REASON_BY_STAGE[stage]).toMatch(
      /^(Dependencies|Source|Render|Inventory|Hook|Apply|Prune|HealthCheck|Destination|Operation)Failed$/,
    );
  });

  it('records status.blockedBy while a dependency blocks the App, and removes it once none does', () => {
    const blockedBy = [{ app: 'db', reason: 'Progressing: apps/Deployment db: 1/3 ready' }];
    const blocked = nextStatus(undefined, { now, syncStatus: 'OutOfSync', blockedBy }, 50);
    expect(blocked.blockedBy).toEqual(blockedBy);
    expect(nextStatus(blocked, { now, syncStatus: 'OutOfSync' }, 50).blockedBy).toEqual(blockedBy);
    expect(nextStatus(blocked, { now, syncStatus: 'Synced', blockedBy: [] }, 50)).not.toHaveProperty('blockedBy');
  });

  it('adds SelfHealPaused only while selfHeal is paused, keeping its transition time while it lasts', () => {
    const message = 'paused after 5 reverts in 10 min, resumes in 60 s: ConfigMap a: data.v (taken by fighter)';
    const paused = nextStatus(undefined, { now, syncStatus: 'OutOfSync', selfHealPaused: message }, 50);
    expect(paused.conditions?.find((c) => c.type === 'SelfHealPaused')).toEqual({
      type: 'SelfHealPaused',
      status: 'True',
      reason: 'DriftKeepsReturning',
      message,
      lastTransitionTime: now,
    });
    const later = '2026-11-21T06:01:00Z';
    const still = nextStatus(paused, { now: later, syncStatus: 'OutOfSync', selfHealPaused: message }, 50);
    expect(still.conditions?.find((c) => c.type === 'SelfHealPaused')?.lastTransitionTime).toBe(now);
    const resumed = nextStatus(still, { now: later, syncStatus: 'Synced' }, 50);
    expect(resumed.conditions?.map((c) => c.type)).toEqual(['Ready', 'SyncError']);
  });

  it('adds Stalled only for a stall, and drops it once the reconcile no longer stalls', () => {
    const error: Failure = { stage: 'source', hint: 'stall', message: 'spec.source.git.repoURL must be…' };
    const stalled = nextStatus(undefined, { now, syncStatus: 'Unknown', observedGeneration: 2, error }, 50);
    expect(stalled.conditions?.find((c) => c.type === 'Stalled')).toEqual({
      type: 'Stalled',
      status: 'True',
      reason: 'SourceFailed',
      message: error.message,
      lastTransitionTime: now,
    });
    const transient = nextStatus(stalled, { now, syncStatus: 'Unknown', error: { ...error, hint: 'retry' } }, 50);
    expect(transient.conditions?.map((c) => c.type)).toEqual(['Ready', 'SyncError']);
    const fixed = nextStatus(
      stalled,
      { now, syncStatus: 'Synced', health: healthy, applied: { revision: 'r', objectHash: 'h' } },
      50,
    );
    expect(fixed.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Ready', 'True'],
      ['SyncError', 'False'],
    ]);
  });

  it('an App that never applied anything and knows no resources is Missing, not Healthy', () => {
    const never = nextStatus(undefined, { now, syncStatus: 'Unknown', health: healthy, error: renderFailed('x') }, 50);
    expect(never).toMatchObject({ healthStatus: 'Missing', healthReason: 'nothing has been applied yet' });
    const applied = nextStatus(
      never,
      { now, syncStatus: 'Synced', health: healthy, applied: { revision: 'r', objectHash: 'h' } },
      50,
    );
    expect(applied.healthStatus).toBe('Healthy');
  });

  it('writes the inventory and retires appliedKinds with it', () => {
    const inventory = [{ id: 'ns_a__ConfigMap', v: 'v1' }];
    const a = nextStatus({ appliedKinds: ['v1/Secret'] }, { now, syncStatus: 'Synced', inventory }, 50);
    expect(a.inventory).toEqual(inventory);
    expect(a.appliedKinds).toBeUndefined();
  });

  it('keeps the inventory when the outcome names none', () => {
    const inventory = [{ id: 'ns_a__ConfigMap', v: 'v1' }];
    expect(nextStatus({ inventory }, { now, syncStatus: 'Synced' }, 50).inventory).toEqual(inventory);
  });
});
