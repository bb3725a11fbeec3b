/**
 * Automatic rollback (`spec.syncPolicy.autoRollback.onDegradedFor`, issue 30 item 3; docs/operator.md "Automatic
 * rollback"): when a sync's new revision stays Degraded that long, the operator rolls the App back to the last
 * revision it was Healthy at and holds it there, as `POST …/rollback` with `hold: true` does. What it did is kept on
 * the App (AUTO_ROLLBACK_ANNOTATION), so it never rolls back twice for one revision, and so the server's incident
 * detector records it on the App's incident. Pure.
 */
import type { AppResource, AppStatus, HealthStatus, HeldAt } from './app-schema.ts';
import { heldAtOf, inHistory, isPending, operationLifecycle } from './app-state.ts';
import { parseDuration } from './duration.ts';

/** Who an automatic rollback is by: its operation's `triggeredBy` and its hold's `by`. */
export const AUTO_ROLLBACK_ACTOR = 'system:auto-rollback';

/**
 * On an App: the last automatic rollback, as JSON `{from, to, at, operationId, after}` (see `autoRollbackOf`), written by
 * the operator in the same patch as the Rollback and its hold, and never removed by a release: it is what keeps the
 * operator from rolling back twice for the revision `from`, and what the incident detector reads.
 */
export const AUTO_ROLLBACK_ANNOTATION = 'cd.svc.space/auto-rollback';

/** An automatic rollback the operator made. */
export interface AutoRollbackRecord {
  /** The revision that stayed Degraded. */
  from: string;
  /** The healthy revision rolled back to (and held). */
  to: string;
  /** When it was made. */
  at: string;
  /** The id of the Rollback operation. */
  operationId: string;
  /** The App's onDegradedFor, as written. */
  after: string;
}

/** The App's last automatic rollback, if any (a malformed annotation records none). */
export function autoRollbackOf(app: AppResource): AutoRollbackRecord | undefined {
  const raw = app.metadata.annotations?.[AUTO_ROLLBACK_ANNOTATION];
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<AutoRollbackRecord>;
    if (typeof v.from !== 'string' || typeof v.to !== 'string' || typeof v.operationId !== 'string') return undefined;
    return { from: v.from, to: v.to, at: String(v.at ?? ''), operationId: v.operationId, after: String(v.after ?? '') };
  } catch {
    return undefined;
  }
}

/** The App's onDegradedFor in ms, undefined when auto-rollback is off (or the duration cannot be read). */
export function autoRollbackDelayMs(app: AppResource): number | undefined {
  const text = app.spec.syncPolicy?.autoRollback?.onDegradedFor;
  return text === undefined ? undefined : parseDuration(text);
}

/**
 * status.degradedSince after a reconcile that found `health` at `revision`: kept while the App stays Degraded at the
 * same revision, `now` when it turns Degraded (or a new revision is Degraded), absent otherwise.
 */
export function degradedSinceOf(
  prev: Pick<AppStatus, 'healthStatus' | 'revision' | 'degradedSince'> | undefined,
  health: HealthStatus | undefined,
  revision: string | undefined,
  now: string,
): string | undefined {
  if (health !== 'Degraded') return undefined;
  const same = prev?.healthStatus === 'Degraded' && prev.revision === revision && prev.degradedSince;
  return same ? prev.degradedSince : now;
}

/** What the status an auto-rollback decision reads: the App's health, revision and healthy revision after this reconcile. */
export interface AutoRollbackFacts {
  health: HealthStatus | undefined;
  revision: string | undefined;
  degradedSince: string | undefined;
  healthyRevision: string | undefined;
  now: number;
}

/** What to do about a Degraded App with auto-rollback on. */
export type AutoRollbackDecision =
  /** Off, or nothing Degraded: nothing to do. */
  | { kind: 'none' }
  /** Degraded, not long enough yet: look again in `inMs`. */
  | { kind: 'wait'; inMs: number }
  /** Degraded long enough, but a rule forbids rolling back (`why`). */
  | { kind: 'refuse'; why: string }
  /** Roll back from `from` to `to` and hold it. */
  | { kind: 'rollback'; from: string; to: string; hold: HeldAt; after: string };

/**
 * Whether to roll `app` back now (see the module comment). Never when auto-rollback is off, when the App is not
 * Degraded at an applied revision, when it is frozen or already held, while another operation is pending, when it
 * already rolled back automatically from this revision, or when there is no earlier healthy revision in its history.
 */
export function decideAutoRollback(app: AppResource, f: AutoRollbackFacts): AutoRollbackDecision {
  const delay = autoRollbackDelayMs(app);
  const from = f.revision;
  if (delay === undefined || f.health !== 'Degraded' || !from || !f.degradedSince) return { kind: 'none' };
  const remaining = Date.parse(f.degradedSince) + delay - f.now;
  if (remaining > 0) return { kind: 'wait', inMs: remaining };
  const after = app.spec.syncPolicy?.autoRollback?.onDegradedFor ?? '';
  const refusal = refusalOf(app, from, f.healthyRevision);
  if (refusal) return { kind: 'refuse', why: refusal };
  const to = f.healthyRevision as string;
  const hold: HeldAt = {
    revision: to,
    by: AUTO_ROLLBACK_ACTOR,
    reason: `Degraded for ${after} at revision ${from}`,
    at: new Date(f.now).toISOString(),
  };
  return { kind: 'rollback', from, to, hold, after };
}

/** Why an App Degraded long enough must not be rolled back, or undefined when it may. */
function refusalOf(app: AppResource, from: string, healthy: string | undefined): string | undefined {
  if (app.spec.freeze === true) return 'the App is frozen';
  if (heldAtOf(app)) return 'the App is held';
  if (isPending(operationLifecycle(app))) return 'another operation is pending';
  if (autoRollbackOf(app)?.from === from) return `it already rolled back automatically from revision ${from}`;
  if (!healthy || healthy === from || !inHistory(app, healthy)) return 'there is no earlier healthy revision';
  return undefined;
}
