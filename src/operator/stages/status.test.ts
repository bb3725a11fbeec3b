import { describe, expect, it } from 'vitest';
import { nextStatus } from './status.ts';

const now = '2026-11-21T06:00:00Z';

describe('nextStatus', () => {
  it('moves revision only on a successful apply and keeps a bounded, newest-first history', () => {
    let s = nextStatus(undefined, { now, syncStatus: 'Synced', applied: { revision: 'r1', objectHash: 'h1' } }, 2);
    expect(s).toMatchObject({ revision: 'r1', objectHash: 'h1', lastSyncAt: now });
    expect(s.previousRevisions).toBeUndefined();
    s = nextStatus(s, { now, syncStatus: 'Synced', applied: { revision: 'r2', objectHash: 'h2' } }, 2);
    s = nextStatus(s, { now, syncStatus: 'Synced', applied: { revision: 'r3', objectHash: 'h3' } }, 2);
    s = nextStatus(s, { now, syncStatus: 'Synced', applied: { revision: 'r4', objectHash: 'h4' } }, 2);
    expect(s.previousRevisions).toEqual(['r3', 'r2']);
    const failed = nextStatus(s, { now, syncStatus: 'OutOfSync', error: 'boom' }, 2);
    expect(failed.revision).toBe('r4');
    expect(failed.previousRevisions).toEqual(['r3', 'r2']);
  });

  it('sets Ready and SyncError conditions, keeping transition times while unchanged', () => {
    const health = { status: 'Healthy' as const, reason: '', resources: [] };
    const a = nextStatus(undefined, { now, syncStatus: 'Synced', health }, 50);
    expect(a.conditions).toEqual([
      { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: now },
      { type: 'SyncError', status: 'False', reason: 'NoError', message: '', lastTransitionTime: now },
    ]);
    const later = '2026-11-21T07:00:00Z';
    const b = nextStatus(a, { now: later, syncStatus: 'OutOfSync', error: 'm/a.yaml: bad' }, 50);
    expect(b.conditions?.[0]).toMatchObject({ status: 'False', reason: 'OutOfSync', lastTransitionTime: later });
    expect(b.conditions?.[1]).toMatchObject({ status: 'True', message: 'm/a.yaml: bad', lastTransitionTime: later });
    const c = nextStatus(b, { now: '2026-11-21T08:00:00Z', syncStatus: 'OutOfSync', error: 'm/a.yaml: bad' }, 50);
    expect(c.conditions?.[1]?.lastTransitionTime).toBe(later);
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
