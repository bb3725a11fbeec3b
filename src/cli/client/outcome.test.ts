import { describe, expect, it } from 'vitest';
import { outcomeOf, type StatusView, shortRevision } from './outcome.ts';

const view = (over: Partial<StatusView>): StatusView => ({
  name: 'web',
  sync_status: 'Synced',
  health: 'Healthy',
  health_reason: '',
  revision: 'a'.repeat(40),
  observed: 'a'.repeat(40),
  last_sync_at: null,
  frozen: false,
  operationState: { kind: 'Sync', id: 'op-1', phase: 'Succeeded' },
  pending_operation: null,
  blocked_by: [],
  held_at: null,
  ...over,
});

describe('outcomeOf', () => {
  it('waits while the operation is pending, not yet recorded, or another one is recorded', () => {
    expect(outcomeOf(view({ pending_operation: 'op-1' }), 'op-1').done).toBe(false);
    expect(outcomeOf(view({ operationState: null }), 'op-1').done).toBe(false);
    // The App was Synced and Healthy from an earlier operation: not ours yet.
    expect(outcomeOf(view({ operationState: { id: 'op-0', kind: 'Sync', phase: 'Succeeded' } }), 'op-1').done).toBe(
      false,
    );
    expect(outcomeOf(view({ operationState: { id: 'op-1', phase: 'Running', kind: 'Sync' } }), 'op-1')).toEqual({
      done: false,
      state: 'Sync running (sync Synced, health Healthy)',
    });
  });

  it('ends well only at Synced and Healthy after the operation succeeded', () => {
    expect(outcomeOf(view({}), 'op-1')).toEqual({
      done: true,
      ok: true,
      summary: `Synced and Healthy at ${'a'.repeat(12)}`,
    });
    expect(outcomeOf(view({ health: 'Progressing' }), 'op-1').done).toBe(false);
  });

  it('ends badly when the operation failed or is held, or the App is Degraded or Unknown', () => {
    const failed = view({
      operationState: { id: 'op-1', kind: 'Sync', phase: 'Failed', message: 'git fetch: not found' },
    });
    expect(outcomeOf(failed, 'op-1')).toEqual({ done: true, ok: false, summary: 'Sync failed: git fetch: not found' });
    expect(
      outcomeOf(
        view({ operationState: { id: 'op-1', kind: 'Sync', phase: 'Held', message: 'awaiting approval' } }),
        'op-1',
      ),
    ).toEqual({
      done: true,
      ok: false,
      summary: 'held: awaiting approval',
    });
    expect(outcomeOf(view({ health: 'Degraded', health_reason: 'CrashLoop' }), 'op-1')).toEqual({
      done: true,
      ok: false,
      summary: 'Degraded: CrashLoop',
    });
    expect(outcomeOf(view({ sync_status: 'Unknown' }), 'op-1')).toMatchObject({ done: true, ok: false });
  });

  it('shortens Git SHAs only', () => {
    expect(shortRevision('0123456789abcdef0123456789abcdef01234567')).toBe('0123456789ab');
    expect(shortRevision('sha256:abc')).toBe('sha256:abc');
    expect(shortRevision(undefined)).toBe('');
  });
});
