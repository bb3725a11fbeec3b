/** How App resources look through the API (contract §2.1, §2.2): presentation only; state lives in app-state.ts. */
import type { Static } from 'typebox';
import type { AppResource } from '../../core/app-schema.ts';
import { heldAtOf, requestedOperationId } from '../../core/app-state.ts';
import { importOriginOf, importPending } from '../../core/import/take-over.ts';
import type { App, AppStatus } from './contract.ts';

/** The app object of contract §2.1 (plus `sync_policy` and `frozen`, which clients need to render an app). */
export type AppView = Static<typeof App>;

/** The app object of contract §2.1 (plus `sync_policy` and `frozen`, which clients need to render an app). */
export function appView(app: AppResource): AppView {
  const status = app.status ?? {};
  return {
    name: app.metadata.name,
    namespace: app.spec.destination.namespace,
    cluster: app.spec.destination.cluster ?? '',
    source: app.spec.source,
    sync_policy: app.spec.syncPolicy ?? {},
    frozen: app.spec.freeze === true,
    sync_status: status.syncStatus ?? 'Unknown',
    health: status.healthStatus ?? 'Unknown',
    health_reason: status.healthReason ?? '',
    revision: status.revision ?? '',
    url: status.url ?? '',
    resources: status.resources ?? [],
    conditions: status.conditions ?? [],
    depends_on: (app.spec.dependsOn ?? []).map((d) => d.name),
    blocked_by: status.blockedBy ?? [],
    held_at: heldAtOf(app) ?? null,
    import_pending: importPendingView(app),
    updated_at: updatedAt(app),
  };
}

/** Where a pending import came from (its origin annotation), or null when the App is not a pending import. */
function importPendingView(app: AppResource): AppView['import_pending'] {
  const annotations = app.metadata.annotations;
  if (!importPending(annotations)) return null;
  const origin = importOriginOf(annotations);
  return {
    api_version: origin?.apiVersion ?? '',
    kind: origin?.kind ?? '',
    namespace: origin?.namespace ?? '',
    name: origin?.name ?? '',
    cluster: origin?.cluster ?? '',
  };
}

/** The newest time the App is known to have changed: last operation end, last sync, or creation. */
function updatedAt(app: AppResource): string {
  const times = [
    app.status?.operationState?.finishedAt,
    app.status?.lastSyncAt,
    app.metadata.creationTimestamp,
    ...(app.status?.conditions ?? []).map((c) => c.lastTransitionTime),
  ].filter((t): t is string => typeof t === 'string' && t !== '');
  const newest = times.map((t) => Date.parse(t)).filter((t) => !Number.isNaN(t));
  return newest.length > 0 ? new Date(Math.max(...newest)).toISOString() : '';
}

/** The status view of contract §2.2 (plus `pending_operation`, the id of an operation not yet picked up). */
export function statusView(app: AppResource): Static<typeof AppStatus> {
  const status = app.status ?? {};
  return {
    name: app.metadata.name,
    sync_status: status.syncStatus ?? 'Unknown',
    health: status.healthStatus ?? 'Unknown',
    health_reason: status.healthReason ?? '',
    revision: status.revision ?? '',
    observed: status.observedRevision ?? '',
    last_sync_at: status.lastSyncAt ?? null,
    frozen: app.spec.freeze === true,
    operationState: status.operationState ?? null,
    pending_operation: requestedOperationId(app),
    blocked_by: status.blockedBy ?? [],
    held_at: heldAtOf(app) ?? null,
  };
}
