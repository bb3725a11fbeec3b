/**
 * What the incident detector reads from an App's status (docs/incidents.md): the facts it keeps per App, the edges
 * between two observations (the events webhooks receive), the causes of incidents, and when an App counts as
 * recovered. Pure: the detector (./detector.ts) supplies the previous facts and stores the next ones.
 *
 * Level-based like the operator: every decision comes from the App as it is now and the facts stored the last time,
 * never from the watch event that brought it, so an observation missed while no server ran is made up for (the
 * edges between the stored facts and now) when one runs again.
 */
import type { AppResource, OperationState } from './app-schema.ts';
import { isStalled } from './app-state.ts';
import type { WebhookEvent } from './events.ts';

/** Incident causes the detector opens incidents for (external emitters may name others). */
export const DETECTED_CAUSES = ['Degraded', 'SyncFailed', 'Stalled'] as const;
export type DetectedCause = (typeof DETECTED_CAUSES)[number];

/** What is kept of an App between observations. */
export interface Facts {
  health: string;
  /** The SyncError condition's reason while it is True, else ''. */
  syncError: string;
  stalled: boolean;
  lastSyncAt: string;
  revision: string;
  /** `<id>|<initiatedAt>|<phase>` of the recorded operation, '' without one. */
  operation: string;
}

/** The facts of `app` as it is now. */
export function factsOf(app: AppResource): Facts {
  const s = app.status;
  const op = s?.operationState;
  return {
    health: s?.healthStatus ?? 'Unknown',
    syncError: conditionOf(app, 'SyncError')?.reason ?? '',
    stalled: isStalled(app),
    lastSyncAt: s?.lastSyncAt ?? '',
    revision: s?.revision ?? '',
    operation: op ? `${op.id ?? ''}|${op.initiatedAt}|${op.phase}` : '',
  };
}

function conditionOf(app: AppResource, type: string) {
  return app.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** An event an observation produced, before it is recorded. */
export interface ObservedEvent {
  type: WebhookEvent | 'operation.finished';
  data: Record<string, unknown>;
}

/**
 * The events between the stored facts `prev` and `app` now: a sync succeeded (lastSyncAt moved), a sync failed
 * (SyncError turned True on a sync someone asked for, or an operation ended Failed), health turned Degraded or recovered from it, an operation
 * finished. Without `prev` (an App seen for the first time) the current state is the baseline: no edges.
 */
export function edges(prev: Facts | undefined, app: AppResource): ObservedEvent[] {
  if (!prev) return [];
  const now = factsOf(app);
  const op = app.status?.operationState;
  const finished = now.operation !== prev.operation && (op?.phase === 'Succeeded' || op?.phase === 'Failed');
  return [...syncEdges(app, prev, now, finished ? op : undefined), ...healthEdges(app, prev, now)];
}

/** operation.finished (`ended`: the operation that just ended), sync.succeeded and sync.failed. */
function syncEdges(app: AppResource, prev: Facts, now: Facts, ended: OperationState | undefined): ObservedEvent[] {
  const out: ObservedEvent[] = [];
  if (ended) out.push({ type: 'operation.finished', data: finishedData(ended) });
  if (now.lastSyncAt !== '' && now.lastSyncAt !== prev.lastSyncAt) {
    out.push({
      type: 'sync.succeeded',
      data: { revision: now.revision, last_sync_at: now.lastSyncAt, ...(ended ? { operation_id: ended.id } : {}) },
    });
  }
  const failed = ended?.phase === 'Failed' ? ended : undefined;
  if ((now.syncError !== '' && prev.syncError === '' && syncWasAsked(app)) || failed) {
    out.push(syncFailed(app, now, failed));
  }
  return out;
}

/** health.degraded and health.recovered. */
function healthEdges(app: AppResource, prev: Facts, now: Facts): ObservedEvent[] {
  if (now.health === 'Degraded' && prev.health !== 'Degraded') {
    return [{ type: 'health.degraded', data: { reason: app.status?.healthReason ?? '', revision: now.revision } }];
  }
  if (prev.health === 'Degraded' && now.health === 'Healthy') {
    return [{ type: 'health.recovered', data: { revision: now.revision } }];
  }
  return [];
}

/** The data of `operation.finished`. */
function finishedData(op: OperationState): Record<string, unknown> {
  return {
    kind: op.kind,
    id: op.id ?? '',
    phase: op.phase,
    revision: op.revision ?? '',
    message: op.message ?? '',
    triggered_by: op.triggeredBy ?? '',
  };
}

/** `sync.failed`: the SyncError condition that turned True, or the operation that ended Failed (`failed`). */
function syncFailed(app: AppResource, now: Facts, failed: OperationState | undefined): ObservedEvent {
  const condition = conditionOf(app, 'SyncError');
  const op = app.status?.operationState;
  return {
    type: 'sync.failed',
    data: {
      reason: now.syncError || 'OperationFailed',
      message: condition?.message || op?.message || '',
      revision: failed?.revision || app.status?.observedRevision || '',
      ...(failed ? { operation_id: failed.id } : {}),
    },
  };
}

/**
 * Whether the App's SyncError is the failure of a sync someone asked for: the App syncs by itself (automated), or
 * the failure is its recorded operation's (an operation that ended Failed no earlier than SyncError turned True).
 * An App without automated sync whose source cannot be read (an image tag not pushed yet: a promote target waiting
 * for its first promote; a branch not created yet) shows SyncError too, so its page says why, but nobody asked it to
 * sync: like Argo CD's ComparisonError, on which its `on-sync-failed` trigger never fires, that is neither a failed
 * sync (`sync.failed`) nor an incident. The operator draws the same line: it notifies and records the `SyncFailed`
 * Event only for a reconcile that ran an operation or an automated sync.
 */
export function syncWasAsked(app: AppResource): boolean {
  if (app.spec.syncPolicy?.automated === true) return true;
  const op = app.status?.operationState;
  if (op?.phase !== 'Failed' || !op.finishedAt) return false;
  // Both times are written by the same status write when the operation's failure turns SyncError True (same ISO
  // format, so they compare as strings); a SyncError that began later is an unrequested failure after it.
  return op.finishedAt >= (conditionOf(app, 'SyncError')?.lastTransitionTime ?? '');
}

/**
 * The incident causes `app` shows now: Degraded health, a stall, or (otherwise) a failing sync someone asked for
 * (`syncWasAsked`).
 */
export function causesOf(app: AppResource): DetectedCause[] {
  const f = factsOf(app);
  const causes: DetectedCause[] = [];
  if (f.health === 'Degraded') causes.push('Degraded');
  if (f.stalled) causes.push('Stalled');
  else if (f.syncError !== '' && syncWasAsked(app)) causes.push('SyncFailed');
  return causes;
}

/**
 * Whether the App is well again, which resolves its detected incidents: Healthy, and its last sync did not fail (no
 * SyncError, not Stalled). OutOfSync alone is not a failure: upstream may have moved on an App without automated
 * sync, or a rollback paused automated sync on purpose.
 */
export function recovered(app: AppResource): boolean {
  const f = factsOf(app);
  return f.health === 'Healthy' && f.syncError === '' && !f.stalled && app.status?.syncStatus !== 'Syncing';
}

/** The revision to remember as the last healthy one: the applied revision while the App is recovered, else none. */
export function healthyRevisionOf(app: AppResource): string | undefined {
  return recovered(app) && app.status?.revision ? app.status.revision : undefined;
}

/** A title and message for an incident of `cause` about `app`. */
export function describeCause(app: AppResource, cause: DetectedCause): { title: string; message: string } {
  const name = app.metadata.name;
  const sync = conditionOf(app, 'SyncError');
  switch (cause) {
    case 'Degraded':
      return { title: `${name} is Degraded`, message: app.status?.healthReason ?? '' };
    case 'Stalled':
      return { title: `${name} is Stalled (${sync?.reason ?? 'Stalled'})`, message: sync?.message ?? '' };
    default:
      return { title: `${name}: sync failed (${sync?.reason ?? 'SyncFailed'})`, message: sync?.message ?? '' };
  }
}

/** What an incident or remediation keeps as evidence of the App's state (no spec, no secret). */
export function evidenceOf(app: AppResource): Record<string, unknown> {
  const s = app.status;
  return {
    health: s?.healthStatus ?? 'Unknown',
    health_reason: s?.healthReason ?? '',
    sync_status: s?.syncStatus ?? 'Unknown',
    revision: s?.revision ?? '',
    observed_revision: s?.observedRevision ?? '',
    last_sync_at: s?.lastSyncAt ?? '',
    frozen: app.spec.freeze === true,
    automated: app.spec.syncPolicy?.automated === true,
    conditions: (s?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason ?? '',
      message: c.message ?? '',
    })),
    operation: s?.operationState ?? null,
    unhealthy_resources: (s?.resources ?? [])
      .filter((r) => r.healthStatus !== 'Healthy')
      .map((r) => ({
        kind: r.kind,
        name: r.name,
        namespace: r.namespace ?? '',
        health: r.healthStatus,
        message: r.message ?? '',
      })),
  };
}
