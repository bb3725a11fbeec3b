import { describe, expect, it } from 'vitest';
import type { AppResource, AppSpec, AppStatus } from './app-schema.ts';
import { HOLD_ANNOTATION } from './app-state.ts';
import {
  AUTO_ROLLBACK_ACTOR,
  AUTO_ROLLBACK_ANNOTATION,
  type AutoRollbackFacts,
  autoRollbackOf,
  decideAutoRollback,
  degradedSinceOf,
} from './auto-rollback.ts';

const T0 = Date.parse('2026-11-27T03:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function app(spec: Partial<AppSpec> = {}, status: AppStatus = {}, annotations?: Record<string, string>): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'a', namespace: 'org-x', ...(annotations ? { annotations } : {}) },
    spec: {
      source: { type: 'Git', git: { repoURL: 'http://git/r.git' } },
      destination: { namespace: 'd' },
      syncPolicy: { automated: true, autoRollback: { onDegradedFor: '5m' } },
      ...spec,
    },
    status: { revision: 'bad', previousRevisions: ['good', 'older'], ...status },
  };
}

/** Degraded at `bad` since T0, healthy at `good` before; `now` ms after T0. */
const facts = (now: number, f: Partial<AutoRollbackFacts> = {}): AutoRollbackFacts => ({
  health: 'Degraded',
  revision: 'bad',
  degradedSince: at(0),
  healthyRevision: 'good',
  now: T0 + now,
  ...f,
});

describe('decideAutoRollback', () => {
  it('waits out onDegradedFor, then rolls back to the healthy revision and holds it, by system', () => {
    expect(decideAutoRollback(app(), facts(60_000))).toEqual({ kind: 'wait', inMs: 240_000 });
    expect(decideAutoRollback(app(), facts(300_000))).toEqual({
      kind: 'rollback',
      from: 'bad',
      to: 'good',
      after: '5m',
      hold: { revision: 'good', by: AUTO_ROLLBACK_ACTOR, reason: 'Degraded for 5m at revision bad', at: at(300_000) },
    });
  });

  it('does nothing when off or when the App is not Degraded at an applied revision', () => {
    expect(decideAutoRollback(app({ syncPolicy: { automated: true } }), facts(600_000))).toEqual({ kind: 'none' });
    for (const health of ['Healthy', 'Progressing', 'Missing', 'Unknown'] as const) {
      expect(decideAutoRollback(app(), facts(600_000, { health }))).toEqual({ kind: 'none' });
    }
    expect(decideAutoRollback(app(), facts(600_000, { revision: undefined }))).toEqual({ kind: 'none' });
    expect(decideAutoRollback(app(), facts(600_000, { degradedSince: undefined }))).toEqual({ kind: 'none' });
  });

  it('never rolls back without an earlier healthy revision in the history', () => {
    const none = { kind: 'refuse', why: 'there is no earlier healthy revision' };
    expect(decideAutoRollback(app(), facts(600_000, { healthyRevision: undefined }))).toEqual(none);
    // Healthy at this very revision before (a node died, say): rolling back to itself is no rollback.
    expect(decideAutoRollback(app(), facts(600_000, { healthyRevision: 'bad' }))).toEqual(none);
    // Healthy once at a revision the history no longer holds.
    expect(decideAutoRollback(app(), facts(600_000, { healthyRevision: 'gone' }))).toEqual(none);
  });

  it('never rolls back a frozen or held App, nor while an operation is pending', () => {
    expect(decideAutoRollback(app({ freeze: true }), facts(600_000))).toMatchObject({ kind: 'refuse' });
    const hold = JSON.stringify({ revision: 'older', by: 'u@x', reason: '', at: at(0) });
    expect(decideAutoRollback(app({}, {}, { [HOLD_ANNOTATION]: hold }), facts(600_000))).toEqual({
      kind: 'refuse',
      why: 'the App is held',
    });
    const pending = { kind: 'Sync' as const, initiatedAt: at(1), id: 'op-9' };
    expect(decideAutoRollback(app({ operation: pending }), facts(600_000))).toEqual({
      kind: 'refuse',
      why: 'another operation is pending',
    });
  });

  it('never rolls back twice for the same failed revision; a new failed revision may be', () => {
    const record = JSON.stringify({ from: 'bad', to: 'good', at: at(0), operationId: 'op-1', after: '5m' });
    const done = app({}, {}, { [AUTO_ROLLBACK_ANNOTATION]: record });
    expect(autoRollbackOf(done)).toMatchObject({ from: 'bad', to: 'good', operationId: 'op-1' });
    expect(decideAutoRollback(done, facts(600_000))).toEqual({
      kind: 'refuse',
      why: 'it already rolled back automatically from revision bad',
    });
    const newer = app(
      {},
      { revision: 'worse', previousRevisions: ['bad', 'good'] },
      { [AUTO_ROLLBACK_ANNOTATION]: record },
    );
    expect(decideAutoRollback(newer, facts(600_000, { revision: 'worse' }))).toMatchObject({
      kind: 'rollback',
      from: 'worse',
      to: 'good',
    });
  });
});

describe('degradedSinceOf', () => {
  it('starts when the App turns Degraded, keeps while it stays Degraded at one revision, ends otherwise', () => {
    expect(degradedSinceOf({ healthStatus: 'Progressing', revision: 'bad' }, 'Degraded', 'bad', at(5))).toBe(at(5));
    const since = { healthStatus: 'Degraded' as const, revision: 'bad', degradedSince: at(0) };
    expect(degradedSinceOf(since, 'Degraded', 'bad', at(9))).toBe(at(0));
    // A new revision that is Degraded too starts its own wait.
    expect(degradedSinceOf(since, 'Degraded', 'worse', at(9))).toBe(at(9));
    expect(degradedSinceOf(since, 'Progressing', 'bad', at(9))).toBeUndefined();
    expect(degradedSinceOf(since, 'Healthy', 'bad', at(9))).toBeUndefined();
  });
});
