import { describe, expect, it } from 'vitest';
import type { AppResource, AppSpec, AppStatus } from '../../core/app-schema.ts';
import { APPROVAL_MESSAGE, BLOCKED_MESSAGE, FROZEN_MESSAGE, HOLD_ANNOTATION } from '../../core/app-state.ts';
import { evaluateWindows } from '../../core/windows.ts';
import {
  alreadyStaged,
  approvalExpiry,
  decide,
  followsHead,
  mayHeal,
  needsAutomatedSync,
  newerSyncRequest,
  operationToRun,
  pinnedRevision,
  withDependencies,
  withWindows,
} from './decide.ts';

const op = { kind: 'Sync' as const, initiatedAt: '2026-11-21T05:00:00Z', id: 'op-1' };

function app(spec: Partial<AppSpec> = {}, status?: AppStatus): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'a', namespace: 'org-x' },
    spec: { source: { type: 'Git', git: { repoURL: 'http://git/r.git' } }, destination: { namespace: 'd' }, ...spec },
    ...(status ? { status } : {}),
  };
}

describe('operationToRun', () => {
  it('runs a requested or running operation, never a finished one', () => {
    expect(operationToRun(app({ operation: op }))).toEqual(op);
    expect(operationToRun(app({ operation: op }, { operationState: { ...op, phase: 'Running' } }))).toEqual(op);
    expect(operationToRun(app({ operation: op }, { operationState: { ...op, phase: 'Succeeded' } }))).toBeUndefined();
    expect(operationToRun(app({ operation: op }, { operationState: { ...op, phase: 'Failed' } }))).toBeUndefined();
    const newer = { ...op, id: 'op-2', initiatedAt: '2026-11-21T06:00:00Z' };
    expect(operationToRun(app({ operation: newer }, { operationState: { ...op, phase: 'Succeeded' } }))).toEqual(newer);
  });

  it('decides a frozen request again; an approval hold only once approval is no longer required', () => {
    const frozen = { operationState: { ...op, phase: 'Held' as const, message: FROZEN_MESSAGE } };
    expect(operationToRun(app({ operation: op }, frozen))).toEqual(op);
    const approval = { operationState: { ...op, phase: 'Held' as const, message: APPROVAL_MESSAGE } };
    expect(operationToRun(app({ operation: op, syncPolicy: { requiresApproval: true } }, approval))).toBeUndefined();
    expect(operationToRun(app({ operation: op }, approval))).toEqual(op);
  });
});

describe('decide', () => {
  it('observes without an operation, syncs head on Sync, holds when frozen or awaiting approval', () => {
    expect(decide(app())).toEqual({ kind: 'observe' });
    expect(decide(app({ operation: op }))).toEqual({ kind: 'sync', revision: 'head', operation: op });
    expect(decide(app({ operation: op, freeze: true }))).toEqual({ kind: 'hold', reason: 'freeze', operation: op });
    expect(decide(app({ operation: op, syncPolicy: { requiresApproval: true } }))).toEqual({
      kind: 'hold',
      reason: 'approval',
      operation: op,
    });
  });

  it('Rollback targets its revision; Approve the staged one; Restart restarts', () => {
    const rb = { ...op, kind: 'Rollback' as const, revision: 'abc' };
    expect(decide(app({ operation: rb }))).toEqual({ kind: 'sync', revision: 'abc', operation: rb });
    expect(decide(app({ operation: { ...op, kind: 'Rollback' } })).kind).toBe('reject');
    const approve = { ...op, kind: 'Approve' as const, id: 'op-2' };
    const staged = { operationState: { ...op, phase: 'Held' as const, revision: 'staged', message: APPROVAL_MESSAGE } };
    expect(decide(app({ operation: approve }, staged))).toEqual({
      kind: 'sync',
      revision: 'staged',
      operation: approve,
    });
    expect(decide(app({ operation: approve })).kind).toBe('reject');
    const restart = { ...op, kind: 'Restart' as const };
    expect(decide(app({ operation: restart }))).toEqual({ kind: 'restart', operation: restart });
  });
});

describe('needsAutomatedSync and alreadyStaged', () => {
  it('syncs automated Apps when upstream or the rendered set moved, never when frozen', () => {
    const s = { revision: 'r1', objectHash: 'h1' };
    expect(needsAutomatedSync(app({ syncPolicy: { automated: true } }, s), 'r1', 'h1')).toBe(false);
    expect(needsAutomatedSync(app({ syncPolicy: { automated: true } }, s), 'r2', 'h1')).toBe(true);
    expect(needsAutomatedSync(app({ syncPolicy: { automated: true } }, s), 'r1', 'h2')).toBe(true);
    expect(needsAutomatedSync(app({ syncPolicy: { automated: true }, freeze: true }, s), 'r2', 'h1')).toBe(false);
    expect(needsAutomatedSync(app({}, s), 'r2', 'h1')).toBe(false);
  });

  it('stages one revision once', () => {
    const held = { operationState: { ...op, phase: 'Held' as const, revision: 'r2', message: APPROVAL_MESSAGE } };
    expect(alreadyStaged(app({}, held), 'r2')).toBe(true);
    expect(alreadyStaged(app({}, held), 'r3')).toBe(false);
    // A revision whose hold expired is not staged again; a new revision is.
    const dropped = { operationState: { ...op, phase: 'Failed' as const, revision: 'r2', message: 'x' } };
    expect(
      alreadyStaged(app({}, { operationState: { ...dropped.operationState, reason: 'ApprovalExpired' } }), 'r2'),
    ).toBe(true);
    expect(
      alreadyStaged(app({}, { operationState: { ...dropped.operationState, reason: 'ApprovalExpired' } }), 'r3'),
    ).toBe(false);
    expect(alreadyStaged(app({}, dropped), 'r2')).toBe(false);
  });
});

describe('approvalExpiry', () => {
  const held = { operationState: { ...op, phase: 'Held' as const, revision: 'r2', message: APPROVAL_MESSAGE } };
  const at = (s: string) => Date.parse(`2026-11-21T05:00:${s}Z`);
  it('drops a sync held for approval once its App policy expiry passed, naming the expiry', () => {
    const policy = { requiresApproval: true, approval: { expiry: '10s' } };
    expect(approvalExpiry(app({ syncPolicy: policy }, held), at('09'))).toBeUndefined();
    expect(approvalExpiry(app({ syncPolicy: policy }, held), at('10'))).toEqual({
      operation: { kind: 'Sync', initiatedAt: op.initiatedAt, id: 'op-1' },
      phase: 'Failed',
      revision: 'r2',
      reason: 'ApprovalExpired',
      message:
        'approval expired at 2026-11-21T05:00:10.000Z (expiry 10s): the held sync was dropped; request a new sync',
    });
  });

  it('keeps a sync without an expiry, one not held for approval, and one a newer request replaced', () => {
    const noExpiry = { requiresApproval: true, approval: { count: 2 } };
    expect(approvalExpiry(app({ syncPolicy: noExpiry }, held), at('59'))).toBeUndefined();
    const policy = { requiresApproval: true, approval: { expiry: '1s' } };
    const frozen = { operationState: { ...held.operationState, message: FROZEN_MESSAGE } };
    expect(approvalExpiry(app({ syncPolicy: policy }, frozen), at('59'))).toBeUndefined();
    const newer = { ...op, kind: 'Approve' as const, id: 'op-2' };
    expect(approvalExpiry(app({ syncPolicy: policy, operation: newer }, held), at('59'))).toBeUndefined();
  });
});

describe('withDependencies', () => {
  const blocked = [{ app: 'db', reason: 'Progressing' }];

  it('holds a sync while a dependency is not ready, keeping the revision a Rollback applies', () => {
    const sync = decide(app({ operation: op }));
    expect(withDependencies(sync, [])).toEqual(sync);
    expect(withDependencies(sync, blocked)).toEqual({ kind: 'hold', reason: 'dependencies', operation: op });
    const rollback = { ...op, kind: 'Rollback' as const, revision: 'c1' };
    expect(withDependencies(decide(app({ operation: rollback })), blocked)).toEqual({
      kind: 'hold',
      reason: 'dependencies',
      operation: rollback,
      revision: 'c1',
    });
  });

  it('lets a restart, a freeze hold and an observing reconcile through', () => {
    for (const intent of [
      decide(app({ operation: { ...op, kind: 'Restart' } })),
      decide(app({ operation: op, freeze: true })),
      decide(app()),
    ]) {
      expect(withDependencies(intent, blocked)).toEqual(intent);
    }
  });

  it('decides a request held for dependencies again on every reconcile', () => {
    const held = { operationState: { ...op, phase: 'Held' as const, message: BLOCKED_MESSAGE } };
    expect(operationToRun(app({ operation: op }, held))).toEqual(op);
    expect(decide(app({ operation: op }, held))).toEqual({ kind: 'sync', revision: 'head', operation: op });
  });
});

describe('mayHeal', () => {
  it('heals only an automated selfHeal App that is neither frozen nor held for approval', () => {
    const heal = { automated: true, selfHeal: true };
    expect(mayHeal(app({ syncPolicy: heal }))).toBe(true);
    expect(mayHeal(app({ syncPolicy: { automated: true } }))).toBe(false);
    expect(mayHeal(app({ syncPolicy: { selfHeal: true } }))).toBe(false);
    expect(mayHeal(app({ syncPolicy: heal, freeze: true }))).toBe(false);
    expect(mayHeal(app({ syncPolicy: { ...heal, requiresApproval: true } }))).toBe(false);
  });
});

describe('superseding a sync that waits on health', () => {
  it('only a sync of the head of an automated App follows the head', () => {
    const auto = app({ syncPolicy: { automated: true } });
    expect(followsHead(auto, { kind: 'observe' })).toBe(true);
    expect(followsHead(auto, { kind: 'sync', revision: 'head', operation: op })).toBe(true);
    const rollback = { ...op, kind: 'Rollback' as const, revision: 'abc' };
    expect(followsHead(auto, { kind: 'sync', revision: 'abc', operation: rollback })).toBe(false);
    expect(followsHead(app(), { kind: 'sync', revision: 'head', operation: op })).toBe(false);
  });

  it('a newer Sync request supersedes; the request being run, a Rollback or a finished one does not', () => {
    const running = { operationState: { ...op, phase: 'Running' as const } };
    const newer = { ...op, id: 'op-2', initiatedAt: '2026-11-21T06:00:00Z' };
    expect(newerSyncRequest(app({ operation: newer }, running), op)).toBe('a newer sync request (op-2)');
    expect(newerSyncRequest(app({ operation: op }), undefined)).toBe('a newer sync request (op-1)');
    // The informer may not have the Running mark yet: the request being run is not newer than itself.
    expect(newerSyncRequest(app({ operation: op }), op)).toBeUndefined();
    expect(newerSyncRequest(app({ operation: op }, running), op)).toBeUndefined();
    const rollback = { ...newer, kind: 'Rollback' as const, revision: 'abc' };
    expect(newerSyncRequest(app({ operation: rollback }, running), op)).toBeUndefined();
    const done = { operationState: { ...newer, phase: 'Succeeded' as const } };
    expect(newerSyncRequest(app({ operation: newer }, done), op)).toBeUndefined();
  });
});

describe('pinnedRevision and a held rollback', () => {
  const clock = { now: Date.parse('2026-11-21T05:00:30Z'), syncPeriodMs: 60_000 };
  const rolledBack = {
    revision: 'r1',
    operationState: {
      ...op,
      kind: 'Rollback' as const,
      phase: 'Succeeded' as const,
      revision: 'r1',
      finishedAt: '2026-11-21T05:00:00Z',
    },
  };
  const holding = (revision: string) => ({
    name: 'a',
    namespace: 'org-x',
    annotations: { [HOLD_ANNOTATION]: JSON.stringify({ revision, by: 'u', reason: 'why', at: '2026' }) },
  });

  it('a rollback stands until its end plus the sync period; a later operation or revision ends that', () => {
    expect(pinnedRevision(app({}, rolledBack), clock)).toBe('r1');
    expect(pinnedRevision(app({}, rolledBack), { ...clock, now: clock.now + 30_000 })).toBeUndefined();
    expect(pinnedRevision(app({}, { ...rolledBack, revision: 'r2' }), clock)).toBeUndefined();
    const synced = { ...rolledBack, operationState: { ...rolledBack.operationState, kind: 'Sync' as const } };
    expect(pinnedRevision(app({}, synced), clock)).toBeUndefined();
  });

  it('a hold pins the App until released, and a requested sync applies the held revision', () => {
    const held = { ...app({ operation: op }), metadata: holding('r0') };
    expect(pinnedRevision(held, { ...clock, now: clock.now + 3_600_000 })).toBe('r0');
    expect(decide(held)).toEqual({ kind: 'sync', revision: 'r0', operation: op });
    const malformed = { ...app({ operation: op }), metadata: { name: 'a', annotations: { [HOLD_ANNOTATION]: '{' } } };
    expect(decide(malformed)).toEqual({ kind: 'sync', revision: 'head', operation: op });
  });
});

describe('withWindows', () => {
  const shut = evaluateWindows(
    [{ name: 'night', kind: 'deny', schedule: '0 0 * * *', duration: '6h', source: 'org' }],
    new Date('2026-03-02T01:00:00Z'),
  );
  const sync = { kind: 'sync' as const, revision: 'head', operation: op };

  it('holds a sync while a window blocks, naming it, and runs it again once the hold record is read back', () => {
    const held = withWindows(sync, shut);
    expect(held).toMatchObject({ kind: 'hold', reason: 'window', operation: op });
    if (held.kind !== 'hold') return;
    expect(held.message).toContain('deny window "night" (org');
    const record = { operationState: { ...op, phase: 'Held' as const, message: held.message ?? '' } };
    expect(operationToRun(app({ operation: op }, record))).toEqual(op);
  });

  it('lets an overriding request, an open verdict and a restart through', () => {
    const override = { ...sync, operation: { ...op, windowOverride: true } };
    expect(withWindows(override, shut)).toEqual(override);
    expect(withWindows(sync, { open: true, active: [] })).toEqual(sync);
    const restart = { kind: 'restart' as const, operation: op };
    expect(withWindows(restart, shut)).toEqual(restart);
  });
});
