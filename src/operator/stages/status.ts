/**
 * Status: the one place the App's status is computed (`nextStatus`, pure) and written (`writeStatus`, a merge
 * patch of the status subresource carrying the whole status, guarded by the resourceVersion read at the start of
 * the reconcile so a stale reconcile can never overwrite a newer one). A failed stage becomes the SyncError
 * condition with the stage's reason, and a stall (a spec that cannot work) the Stalled condition.
 */

import { APP_API_VERSION, APP_KIND } from '../../core/app-names.ts';
import type {
  AppResource,
  AppStatus,
  BlockedBy,
  Condition,
  ConditionType,
  HealthStatus,
  HeldAt,
  InventoryEntry,
  OperationState,
  ResourceStatus,
  RevisionTag,
  SyncStatus,
} from '../../core/app-schema.ts';
import { degradedSinceOf } from '../../core/auto-rollback.ts';
import type { RetryHint } from '../../core/errors.ts';
import type { ObjectClient } from '../../kube/index.ts';
import type { Stage } from '../stage-error.ts';

/** The condition reason of a failed stage. */
export const REASON_BY_STAGE: Readonly<Record<Stage, string>> = {
  dependencies: 'DependenciesFailed',
  destination: 'DestinationFailed',
  source: 'SourceFailed',
  render: 'RenderFailed',
  inventory: 'InventoryFailed',
  operation: 'OperationFailed',
  hook: 'HookFailed',
  apply: 'ApplyFailed',
  prune: 'PruneFailed',
  health: 'HealthCheckFailed',
};

/** A reconcile's failure as the status records it. */
export interface Failure {
  stage: Stage;
  hint: RetryHint;
  message: string;
  /** A reason more precise than the stage's (e.g. ClusterUnreachable); default REASON_BY_STAGE. */
  reason?: string;
}

/** Health of an App that has never applied anything and knows no resources: not Healthy (nothing is there). */
const NOTHING_APPLIED = { status: 'Missing' as const, reason: 'nothing has been applied yet' };

/** What one reconcile found and did; everything optional keeps its previous value. */
export interface Outcome {
  now: string;
  observedGeneration?: number;
  observedRevision?: string;
  syncStatus: SyncStatus;
  health?: { status: HealthStatus; reason: string; resources: ResourceStatus[] };
  /**
   * A successful apply of `revision` with rendered-set hash `objectHash`; `origin` (image sources) is the tag and
   * image it came from, kept in status.revisionTags while the revision is in the history; `url` is the App's
   * public address (status.url), absent when it has none.
   */
  applied?: { revision: string; objectHash: string; origin?: { tag: string; image: string }; url?: string };
  /** The App's inventory after this reconcile (replaces status.inventory and retires status.appliedKinds). */
  inventory?: InventoryEntry[];
  operationState?: OperationState;
  /** The dependencies keeping the App from syncing (status.blockedBy; empty removes it); undefined keeps it. */
  blockedBy?: BlockedBy[];
  /** The reconcile's failure: the SyncError condition (and Stalled for a stall); undefined clears both. */
  error?: Failure;
  /** The held rollback (status.heldAt): null removes it; undefined keeps it. */
  heldAt?: HeldAt | null;
  /** Why selfHeal stopped reverting (the SelfHealPaused condition, present only while True); undefined clears it. */
  selfHealPaused?: string;
}

/** Computes the next status from the previous one and an outcome. `maxHistory` bounds previousRevisions. */
export function nextStatus(prev: AppStatus | undefined, o: Outcome, maxHistory: number): AppStatus {
  const p = prev ?? {};
  const next: AppStatus = { ...p, syncStatus: o.syncStatus };
  if (o.observedGeneration !== undefined) next.observedGeneration = o.observedGeneration;
  if (o.observedRevision !== undefined) next.observedRevision = o.observedRevision;
  if (o.health) {
    next.healthStatus = o.health.status;
    next.healthReason = o.health.reason;
    next.resources = o.health.resources;
  }
  if (o.applied) recordApply(next, p, o.applied, o.now, maxHistory);
  if (o.inventory) {
    next.inventory = o.inventory;
    delete next.appliedKinds;
  }
  if (o.operationState) next.operationState = o.operationState;
  if (o.heldAt) next.heldAt = o.heldAt;
  else if (o.heldAt === null) delete next.heldAt;
  if (o.blockedBy && o.blockedBy.length > 0) next.blockedBy = o.blockedBy;
  else if (o.blockedBy) delete next.blockedBy;
  if (!next.revision && (next.resources ?? []).length === 0) {
    next.healthStatus = NOTHING_APPLIED.status;
    next.healthReason = NOTHING_APPLIED.reason;
  }
  recordHealthHistory(next, p, o);
  next.conditions = conditionsOf(next, p.conditions, o);
  return next;
}

/** A successful apply: the revision (the previous one into the bounded history), hash, sync time, URL and origin. */
function recordApply(
  next: AppStatus,
  p: AppStatus,
  applied: NonNullable<Outcome['applied']>,
  now: string,
  maxHistory: number,
): void {
  const old = p.revision;
  if (old && old !== applied.revision) {
    next.previousRevisions = [
      old,
      ...(p.previousRevisions ?? []).filter((r) => r !== old && r !== applied.revision),
    ].slice(0, maxHistory);
  }
  next.revision = applied.revision;
  next.objectHash = applied.objectHash;
  next.lastSyncAt = now;
  if (applied.url) next.url = applied.url;
  else delete next.url;
  if (applied.origin) next.revisionTags = revisionTags(next, applied.revision, applied.origin, p.revisionTags);
}

/**
 * What automatic rollback reads (src/core/auto-rollback.ts): the last revision the App was Healthy at (while its
 * reconcile did not fail), and since when it is Degraded at its applied revision.
 */
function recordHealthHistory(next: AppStatus, p: AppStatus, o: Outcome): void {
  if (next.healthStatus === 'Healthy' && next.revision && !o.error) next.healthyRevision = next.revision;
  const since = degradedSinceOf(p, next.healthStatus, next.revision, o.now);
  if (since) next.degradedSince = since;
  else delete next.degradedSince;
}

/**
 * Ready, SyncError and, only while True (as kstatus does), Stalled (the spec cannot work until it changes) and
 * SelfHealPaused (another writer keeps changing what svc applies).
 */
function conditionsOf(next: AppStatus, prev: Condition[] | undefined, o: Outcome): Condition[] {
  const ready = next.syncStatus === 'Synced' && next.healthStatus === 'Healthy';
  const failed = o.error ? (o.error.reason ?? REASON_BY_STAGE[o.error.stage]) : undefined;
  const readyReason = ready ? 'Ready' : notReadyReason(next);
  const conditions = [
    condition(prev, 'Ready', ready ? 'True' : 'False', readyReason, o.now, next.healthReason),
    condition(prev, 'SyncError', failed ? 'True' : 'False', failed ?? 'NoError', o.now, o.error?.message),
  ];
  if (o.error?.hint === 'stall') {
    conditions.push(condition(prev, 'Stalled', 'True', failed ?? 'Stalled', o.now, o.error.message));
  }
  if (o.selfHealPaused !== undefined) {
    conditions.push(condition(prev, 'SelfHealPaused', 'True', 'DriftKeepsReturning', o.now, o.selfHealPaused));
  }
  return conditions;
}

/** The origin of every revision still in the history, the applied one first. */
function revisionTags(
  next: AppStatus,
  revision: string,
  origin: { tag: string; image: string },
  prev: RevisionTag[] | undefined,
): RevisionTag[] {
  const kept = new Set(next.previousRevisions ?? []);
  const older = (prev ?? []).filter((e) => e.revision !== revision && kept.has(e.revision));
  return [{ revision, ...origin }, ...older];
}

function notReadyReason(s: AppStatus): string {
  if (s.syncStatus !== 'Synced') return s.syncStatus ?? 'Unknown';
  return s.healthStatus ?? 'Unknown';
}

function condition(
  prev: Condition[] | undefined,
  type: ConditionType,
  status: 'True' | 'False',
  reason: string,
  now: string,
  message: string | undefined,
): Condition {
  const old = prev?.find((c) => c.type === type);
  return {
    type,
    status,
    reason,
    message: message ?? '',
    lastTransitionTime: old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : now,
  };
}

/**
 * Writes `status` onto the App's status subresource. The resourceVersion guard turns a concurrent change into a
 * 409 (the reconcile is retried against fresh state).
 */
export async function writeStatus(mgmt: ObjectClient, app: AppResource, status: AppStatus): Promise<AppResource> {
  const ref = {
    apiVersion: APP_API_VERSION,
    kind: APP_KIND,
    name: app.metadata.name,
    namespace: app.metadata.namespace,
  };
  const patch = {
    metadata: { resourceVersion: app.metadata.resourceVersion },
    status: withNulls(app.status ?? {}, status),
  };
  return (await mgmt.mergePatch(ref, patch, 'status')) as unknown as AppResource;
}

/**
 * A merge patch value replacing `prev` with `next`: keys missing from `next` become null (removed), in nested objects
 * too (a merge patch merges objects: an ended operation's record would otherwise keep the running one's syncPhase).
 */
function withNulls(prev: object, next: object): Record<string, unknown> {
  const out: Record<string, unknown> = { ...next };
  const before = prev as Record<string, unknown>;
  for (const k of Object.keys(before)) {
    if (!(k in next)) out[k] = null;
    else if (isPlainObject(before[k]) && isPlainObject(out[k])) out[k] = withNulls(before[k], out[k]);
  }
  return out;
}

const isPlainObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);
