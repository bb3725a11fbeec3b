import { describe, expect, it } from 'vitest';
import { type OperationRecord, type OutcomeView, operationOutcome } from './operation-outcome.ts';

const HEAD = 'b'.repeat(40);
const OLD = 'a'.repeat(40);

const view = (over: Partial<OutcomeView> = {}, record: Partial<OperationRecord> | null = {}): OutcomeView => ({
  sync_status: 'Synced',
  health: 'Healthy',
  revision: HEAD,
  operationState: record === null ? null : { kind: 'Sync', id: 'op-1', phase: 'Succeeded', ...record },
  pending_operation: null,
  ...over,
});
const state = (v: OutcomeView, id?: string) => operationOutcome(v, id).state;

describe('operationOutcome', () => {
  it('runs while requested, not yet visible, marked Running, Syncing, or not Healthy yet', () => {
    expect(state(view({ pending_operation: 'op-1' }, null), 'op-1')).toBe('running');
    expect(state(view({}, { id: 'op-0' }), 'op-1')).toBe('running');
    expect(state(view({}, { phase: 'Running' }), 'op-1')).toBe('running');
    expect(state(view({ sync_status: 'Syncing' }), 'op-1')).toBe('running');
    // Applied (phase Succeeded) but the rollout is not done: the UI used to say "succeeded" here.
    expect(state(view({ health: 'Progressing' }), 'op-1')).toBe('running');
    expect(state(view({ health: 'Missing' }), 'op-1')).toBe('running');
  });

  it('says the phase and wave a running staged sync is at (operationState.syncPhase and wave)', () => {
    const running = { kind: 'Sync', id: 'op-1', phase: 'Running', syncPhase: 'PreSync', wave: -1 };
    expect(operationOutcome({ ...view({ sync_status: 'Syncing' }), operationState: running }, 'op-1')).toEqual({
      state: 'running',
      summary: 'Sync running, PreSync wave -1 (sync Syncing, health Healthy)',
    });
    expect(operationOutcome(view({}, { phase: 'Running' }), 'op-1').summary).toBe(
      'Sync running (sync Synced, health Healthy)',
    );
  });

  it('succeeds Synced and Healthy', () => {
    expect(operationOutcome(view(), 'op-1')).toEqual({
      state: 'succeeded',
      summary: 'Synced and Healthy at bbbbbbbbbbbb',
    });
  });

  it('ends a Git Rollback Healthy at its revision although the App is OutOfSync with the branch head', () => {
    const rolledBack = view({ sync_status: 'OutOfSync', revision: OLD }, { kind: 'Rollback', revision: OLD });
    expect(operationOutcome(rolledBack, 'op-1')).toMatchObject({ state: 'succeeded', summary: /rolled back to a{12}/ });
    // Not before it is Healthy, and a Sync left OutOfSync is still settling.
    expect(state({ ...rolledBack, health: 'Progressing' }, 'op-1')).toBe('running');
    expect(state(view({ sync_status: 'OutOfSync' }), 'op-1')).toBe('running');
    // A Rollback whose revision is not the applied one (the App moved on since) waits for Synced like any other.
    expect(state(view({ sync_status: 'OutOfSync' }, { kind: 'Rollback', revision: OLD }), 'op-1')).toBe('running');
  });

  it('fails when the operation Failed or the App turned Degraded, Unknown or Stalled after it', () => {
    expect(operationOutcome(view({}, { phase: 'Failed', message: 'git fetch: not found' }), 'op-1')).toEqual({
      state: 'failed',
      summary: 'Sync failed: git fetch: not found',
    });
    expect(operationOutcome(view({ health: 'Degraded', health_reason: 'CrashLoop' }), 'op-1')).toEqual({
      state: 'failed',
      summary: 'Degraded: CrashLoop',
    });
    expect(state(view({ sync_status: 'Unknown' }), 'op-1')).toBe('failed');
    expect(state(view({ health: 'Unknown' }), 'op-1')).toBe('failed');
    expect(state(view({ health: 'Progressing', stalled: true }), 'op-1')).toBe('failed');
  });

  it('is held while its record says Held', () => {
    expect(operationOutcome(view({}, { phase: 'Held', message: 'awaiting approval' }), 'op-1')).toEqual({
      state: 'held',
      summary: 'held: awaiting approval',
    });
  });

  it("without an id, judges the App's latest operation, or the App alone when it never had one", () => {
    expect(state(view({ pending_operation: 'op-2' }))).toBe('running');
    expect(state(view({}, { phase: 'Running' }))).toBe('running');
    expect(state(view())).toBe('succeeded');
    expect(state(view({ health: 'Progressing' }, null))).toBe('running');
    expect(state(view({ health: 'Degraded' }, null))).toBe('failed');
    expect(state(view({ reported: false }, null))).toBe('running');
  });
});
