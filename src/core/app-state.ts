/**
 * The App state machine: the one definition of an App's operation lifecycle, of "pending" (contract §3, §8: one
 * pending operation per App, a second is 409), of the terminal states a status `wait` ends on (§4.2 rule 3), of how
 * an operation is written onto `spec.operation` (§2.4), of the repoURL rule and of the deployable source types.
 * The API, the push receiver and the operator all decide from here. Pure: no I/O (writing an operation takes the
 * caller's read and patch functions).
 *
 * Lifecycle of an operation, from `spec.operation` (the request) and `status.operationState` (the record):
 *
 *   idle ─request─▶ requested ─picked up─▶ running ─▶ finished (Succeeded | Failed)
 *                       │                     │
 *                       └──────▶ held ◀───────┘   (frozen: runs on unfreeze; approval: Approve replaces it)
 *
 * Requested, running and held are pending: a new request is refused (409), except Approve, which is accepted
 * exactly while the App is held for approval and replaces the held request.
 */
import { randomUUID } from 'node:crypto';
import { SOURCE_TYPES } from './app-names.ts';
import type { AppResource, HeldAt, Operation, OperationKind, OperationState, SourceType } from './app-schema.ts';
import { ConflictError, NotFoundError } from './errors.ts';
import { hasEnded, type OutcomeView, operationOutcome } from './operation-outcome.ts';
import { WINDOW_MESSAGE_PREFIX } from './windows.ts';

/** `operationState.message` of a request held because the App is frozen (`spec.freeze`). */
export const FROZEN_MESSAGE = 'held: the App is frozen (spec.freeze)';
/** `operationState.message` of a sync held until someone approves it (`syncPolicy.requiresApproval`). */
export const APPROVAL_MESSAGE = 'held: waiting for approval (syncPolicy.requiresApproval)';

/**
 * `operationState.message` of a request held while a dependency (spec.dependsOn) is not ready; it runs once every
 * dependency is (status.blockedBy says which and why).
 */
export const BLOCKED_MESSAGE = 'held: waiting for dependencies (status.blockedBy)';

/** Why an operation is held. */
export type HoldReason = 'freeze' | 'approval' | 'dependencies' | 'window';

/** Where an App's operation stands. */
export type OperationLifecycle =
  /** Nothing requested, or a record without a live request (a Running or frozen record whose request is gone). */
  | { phase: 'idle' }
  /** `spec.operation` is newer than anything recorded: the operator has not picked it up yet. */
  | { phase: 'requested'; operation: Operation }
  /** The operator picked the request up and has not recorded its end yet. */
  | { phase: 'running'; operation: Operation }
  /**
   * Held: by a freeze (the request runs on unfreeze), or for approval (`revision` is the staged revision; the
   * request is absent when an automated App staged an upstream change on its own).
   */
  | { phase: 'held'; reason: HoldReason; operation: Operation | undefined; revision: string | undefined }
  /** The last request ended. */
  | { phase: 'finished'; result: 'Succeeded' | 'Failed'; operation: Operation | undefined };

/** True when `state` records the request `op` (same id, initiatedAt and kind). */
export function sameRequest(op: Operation, state: OperationState | undefined): boolean {
  return (
    state !== undefined &&
    state.initiatedAt === op.initiatedAt &&
    (state.id ?? '') === (op.id ?? '') &&
    state.kind === op.kind
  );
}

/**
 * True when `state` is a record the operator made on its own (no id: an automated App staging an upstream change
 * for approval) after `op` was requested: `op` was handled before that record replaced its own. Writers stamp new
 * requests later than the record they read (see `operationPatch`), so a new request is never mistaken for this.
 */
function supersededBy(op: Operation, state: OperationState | undefined): boolean {
  if (!state || state.id || !state.initiatedAt) return false;
  return Date.parse(state.initiatedAt) >= Date.parse(op.initiatedAt);
}

function holdReason(state: OperationState): HoldReason {
  if (state.message === FROZEN_MESSAGE) return 'freeze';
  if (state.message?.startsWith(WINDOW_MESSAGE_PREFIX)) return 'window';
  return state.message === BLOCKED_MESSAGE ? 'dependencies' : 'approval';
}

/** The App's operation lifecycle (see the module comment). */
export function operationLifecycle(app: AppResource): OperationLifecycle {
  const op = app.spec.operation;
  const state = app.status?.operationState;
  if (op && !sameRequest(op, state) && !supersededBy(op, state)) return { phase: 'requested', operation: op };
  if (!state) return { phase: 'idle' };
  const recorded = op && sameRequest(op, state) ? op : undefined;
  switch (state.phase) {
    case 'Running':
      return recorded ? { phase: 'running', operation: recorded } : { phase: 'idle' };
    case 'Held': {
      const reason = holdReason(state);
      // A frozen or blocked record runs its request once released; without the request there is nothing to run.
      if (reason !== 'approval' && !recorded) return { phase: 'idle' };
      return { phase: 'held', reason, operation: recorded, revision: state.revision };
    }
    default:
      return { phase: 'finished', result: state.phase, operation: recorded };
  }
}

/**
 * On an App: the id of the operation someone asked to end (`POST /apps/{ns}/{name}/terminate`). The operator reads
 * it before it runs an operation and while a sync waits for its hooks and waves; the operation then ends Failed
 * (reason Terminated). An id that is not the current operation's means nothing.
 */
export const TERMINATE_ANNOTATION = 'cd.svc.space/terminate';

/** The id by which `op` is terminated (its id; its initiatedAt for a request written without one). */
export function terminationId(op: Operation): string {
  return op.id ?? op.initiatedAt;
}

/** True when the App carries a request to terminate `op`. */
export function terminationRequested(app: AppResource, op: Operation): boolean {
  return app.metadata.annotations?.[TERMINATE_ANNOTATION] === terminationId(op);
}

/**
 * On an App: a held rollback, as JSON `{revision, by, reason, at}` (see `heldAtOf`). It is written by the API with
 * the Rollback it holds, removed by release, and read by the operator on every reconcile (mirrored into
 * status.heldAt): while present, automated sync, selfHeal and requested syncs apply that revision, never the head.
 * An annotation, not status: it is the user's intent, so it must survive the operator rewriting status and be
 * kept by a backup of the App's manifest (docs/compatibility.md).
 */
export const HOLD_ANNOTATION = 'cd.svc.space/hold';

/** The App's held rollback, if any (a malformed annotation holds nothing; the API never writes one). */
export function heldAtOf(app: AppResource): HeldAt | undefined {
  const raw = app.metadata.annotations?.[HOLD_ANNOTATION];
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<HeldAt>;
    if (typeof v.revision !== 'string' || v.revision === '') return undefined;
    return { revision: v.revision, by: String(v.by ?? ''), reason: String(v.reason ?? ''), at: String(v.at ?? '') };
  } catch {
    return undefined;
  }
}

/** The annotation value holding `held`. */
export function holdAnnotation(held: HeldAt): string {
  return JSON.stringify(held);
}

/** True while an operation is requested, running or held: a new one is refused (409), Approve aside. */
export function isPending(lifecycle: OperationLifecycle): boolean {
  return lifecycle.phase === 'requested' || lifecycle.phase === 'running' || lifecycle.phase === 'held';
}

/** The id of a request the operator has not picked up yet (the status view's `pending_operation`), else null. */
export function requestedOperationId(app: AppResource): string | null {
  const life = operationLifecycle(app);
  return life.phase === 'requested' ? (life.operation.id ?? null) : null;
}

const HELD_WHERE: Record<HoldReason, string> = {
  freeze: 'held while the app is frozen',
  approval: 'held for approval; approve it first',
  dependencies: 'held until its dependencies are ready (status.blockedBy)',
  window: 'held until a delivery window lets it run',
};

function pendingMessage(app: AppResource, life: OperationLifecycle): string {
  const name = app.metadata.name;
  if (life.phase === 'held' && !life.operation) {
    return `app ${name} has a sync held for approval (revision ${life.revision ?? 'unknown'}); approve it first`;
  }
  const op = 'operation' in life ? life.operation : undefined;
  const where =
    life.phase === 'held' ? HELD_WHERE[life.reason] : life.phase === 'running' ? 'running' : 'not picked up yet';
  return `app ${name} already has a pending ${op?.kind ?? ''} operation (${op?.id ?? ''}), ${where}`;
}

/**
 * Refuses a new operation of `kind` on the App with ConflictError (409) while another is pending. Approve is the
 * one exception: it is accepted exactly while the App is held for approval, and refused otherwise.
 */
export function admitOperation(app: AppResource, kind: OperationKind): void {
  const life = operationLifecycle(app);
  if (kind === 'Approve') {
    if (life.phase === 'held' && life.reason === 'approval') return;
    if (isPending(life)) throw new ConflictError(pendingMessage(app, life));
    throw new ConflictError(`app ${app.metadata.name} has no held sync to approve`);
  }
  // A request waiting for a delivery window is only waiting: a newer one (an override, a newer push) replaces it.
  if (life.phase === 'held' && life.reason === 'window') return;
  if (isPending(life)) throw new ConflictError(pendingMessage(app, life));
}

/** The revision an Approve carries: the one the App holds for approval. */
export function heldRevision(app: AppResource): string | undefined {
  const life = operationLifecycle(app);
  return life.phase === 'held' && life.reason === 'approval' ? life.revision : undefined;
}

/** An operation to write (contract §2.4). */
export interface OperationRequest {
  kind: OperationKind;
  /** Target revision (Rollback, promote's Deploy). An Approve without one carries the held revision. */
  revision?: string;
  /** Requesting identity: a user id, or `webhook:<provider>` for the push receiver. */
  triggeredBy: string;
  /** Run even while a delivery window blocks syncs (a deployment:manage caller's one-off override). */
  windowOverride?: boolean;
  /** Further spec fields written in the same patch (e.g. a new image tag or replica count). */
  specPatch?: Record<string, unknown>;
}

/** The server-side stamp of a new request: its correlation id and the time it was made. */
export interface OperationStamp {
  id: string;
  now: Date;
}

/** A fresh stamp: a random UUID and the current time. */
export function newStamp(): OperationStamp {
  return { id: randomUUID(), now: new Date() };
}

/**
 * The Sync a new App is created with when it must take live objects over at once (adopt, import): requested by
 * `triggeredBy`, with a fresh id and the current time.
 */
export function initialSync(triggeredBy: string): {
  kind: 'Sync';
  initiatedAt: string;
  id: string;
  triggeredBy: string;
} {
  const stamp = newStamp();
  return { kind: 'Sync', initiatedAt: stamp.now.toISOString(), id: stamp.id, triggeredBy };
}

/** The merge patch writing one operation, and the operation's id. */
export interface OperationPatch {
  id: string;
  patch: { spec: Record<string, unknown> };
}

/**
 * The merge patch that writes `request` onto the App as read, or ConflictError (see `admitOperation`). The
 * patch carries the stamp's id, initiatedAt (never earlier than the recorded operation's, so the new request is
 * always newer than what the App records) and triggeredBy, and clears a previous `revision` explicitly (null),
 * since a merge patch keeps the fields it does not name.
 */
export function operationPatch(app: AppResource, request: OperationRequest, stamp: OperationStamp): OperationPatch {
  admitOperation(app, request.kind);
  const recordedAt = Date.parse(app.status?.operationState?.initiatedAt ?? '');
  const at = Number.isFinite(recordedAt) ? Math.max(stamp.now.getTime(), recordedAt + 1) : stamp.now.getTime();
  const revision = request.revision ?? (request.kind === 'Approve' ? heldRevision(app) : undefined);
  const operation = {
    kind: request.kind,
    initiatedAt: new Date(at).toISOString(),
    id: stamp.id,
    triggeredBy: request.triggeredBy,
    revision: revision ?? null,
    // Cleared explicitly (null) like revision: an override is for this request only.
    windowOverride: request.windowOverride === true ? true : null,
  };
  return { id: stamp.id, patch: { spec: { ...request.specPatch, operation } } };
}

/**
 * Whether `fresh` differs from `read` only where the operator writes on its own (status health, resources,
 * finalizers): same spec generation and same operation record, so every check made on `read` still holds.
 */
export function unchangedForOperations(read: AppResource, fresh: AppResource): boolean {
  return (
    read.metadata.generation === fresh.metadata.generation &&
    JSON.stringify(read.status?.operationState ?? null) === JSON.stringify(fresh.status?.operationState ?? null)
  );
}

/** The I/O of writing an operation, supplied by the caller (the API's App client, the operator's object client). */
export interface OperationIO {
  /** Reads the App again; undefined when it is gone. */
  read(): Promise<AppResource | undefined>;
  /** Merge-patches the App guarded by `resourceVersion`; resolves false when that version is stale. */
  patch(patch: OperationPatch['patch'], resourceVersion: string | undefined): Promise<boolean>;
}

/** How often a write that lost a resourceVersion race to an unrelated change is re-read and retried. */
const MAX_ATTEMPTS = 4;

/**
 * Writes `request` onto `app` (as read by the caller) and returns the operation's id. The patch is guarded by the
 * resourceVersion read, so two writers racing on one App cannot both win. When the App changed meanwhile, it is
 * read again: if `stillValid(read, fresh)` (default: changed only where the operator writes on its own) the write
 * is retried on the fresh read (up to 4 attempts), else ConflictError; a pending operation on the fresh read is
 * the usual 409, an App gone meanwhile NotFoundError.
 */
export async function writeOperation(
  io: OperationIO,
  app: AppResource,
  request: OperationRequest,
  options: { stamp?: () => OperationStamp; stillValid?: (read: AppResource, fresh: AppResource) => boolean } = {},
): Promise<string> {
  const stamp = options.stamp ?? newStamp;
  const stillValid = options.stillValid ?? unchangedForOperations;
  let current = app;
  for (let attempt = 1; ; attempt++) {
    const { id, patch } = operationPatch(current, request, stamp());
    if (await io.patch(patch, current.metadata.resourceVersion)) return id;
    const fresh = await io.read();
    if (!fresh) throw new NotFoundError(`app ${app.metadata.name} not found`);
    admitOperation(fresh, request.kind);
    if (attempt >= MAX_ATTEMPTS || !stillValid(app, fresh)) {
      throw new ConflictError(`app ${app.metadata.name} changed while the request was handled; try again`);
    }
    current = fresh;
  }
}

/** The tag an applied image digest came from (`status.revisionTags`), if recorded. */
export function revisionTagOf(app: AppResource, revision: string): string | undefined {
  return app.status?.revisionTags?.find((e) => e.revision === revision)?.tag;
}

/** Whether `revision` is one the App applied: `status.revision` or one of `status.previousRevisions`. */
export function inHistory(app: AppResource, revision: string): boolean {
  return revision !== '' && [app.status?.revision, ...(app.status?.previousRevisions ?? [])].includes(revision);
}

/** True when the App carries a Stalled condition for its current generation: it waits for a spec change. */
export function isStalled(app: AppResource): boolean {
  const s = app.status;
  const stalled = s?.conditions?.some((c) => c.type === 'Stalled' && c.status === 'True') === true;
  return stalled && s?.observedGeneration === app.metadata.generation;
}

/**
 * What the operation-outcome rule reads of an App (./operation-outcome.ts): its status view's fields, plus whether
 * the operator reported on it at all and whether it is Stalled, which the server knows and the view does not show.
 */
export function outcomeViewOf(app: AppResource): OutcomeView {
  const s = app.status;
  return {
    sync_status: s?.syncStatus ?? 'Unknown',
    health: s?.healthStatus ?? 'Unknown',
    health_reason: s?.healthReason ?? '',
    revision: s?.revision ?? '',
    operationState: s?.operationState ?? null,
    pending_operation: requestedOperationId(app),
    reported: s !== undefined,
    stalled: isStalled(app),
  };
}

/**
 * Whether a status `wait` may end (contract §4.2 rule 3): the App's latest operation has ended or is held, by the one
 * operation-outcome rule the CLI and the web UI use too; an App without one ends Synced and Healthy, Degraded,
 * Unknown or Stalled. Never while an operation is requested or running; not before the operator reported.
 */
export function isWaitTerminal(app: AppResource): boolean {
  return hasEnded(operationOutcome(outcomeViewOf(app)));
}

/** What decides whether an App is in sync: what was applied, what the source renders now, what is live. */
export interface SyncFacts {
  /** `status.revision` and `status.objectHash`: the last applied revision and rendered set. */
  appliedRevision: string | undefined;
  appliedHash: string | undefined;
  /** The upstream head and the hash of what it renders (prepared as the operator applies it). */
  head: string;
  hash: string;
  /** Whether every rendered object exists on the destination. */
  allLive: boolean;
  /** Whether a live object lost a field svc applied to another writer (src/engine/drift.ts). */
  drifted: boolean;
}

/**
 * The one sync rule, shared by the operator (status.syncStatus) and the diff route, so the two never disagree:
 * Synced when the head's rendered set is exactly what was last applied, every object of it is live and none drifted.
 */
export function syncStatusOf(f: SyncFacts): 'Synced' | 'OutOfSync' {
  const applied = f.appliedRevision === f.head && f.appliedHash === f.hash;
  return applied && f.allLive && !f.drifted ? 'Synced' : 'OutOfSync';
}

/**
 * Source types svc can deploy: each has a source driver in the engine (src/engine/sources; a test checks
 * the two agree). The API refuses the others (contract §4.2 rule 1, §7).
 */
export const DEPLOYABLE_SOURCE_TYPES = [
  'Git',
  'Image',
  'HelmChart',
  'Catalog',
] as const satisfies readonly SourceType[];
export type DeployableSourceType = (typeof DEPLOYABLE_SOURCE_TYPES)[number];

/** True for a source type svc can deploy. */
export function isDeployableSourceType(type: string): type is DeployableSourceType {
  return (DEPLOYABLE_SOURCE_TYPES as readonly string[]).includes(type);
}

/** Why a source type cannot be used (unknown, or not deployable yet), or undefined when it can. */
export function sourceTypeProblem(type: unknown): string | undefined {
  if (typeof type !== 'string' || !(SOURCE_TYPES as readonly string[]).includes(type)) {
    return `source.type must be one of ${SOURCE_TYPES.join(', ')}`;
  }
  if (isDeployableSourceType(type)) return undefined;
  return `source.type ${type} is not supported yet`;
}

/**
 * Remote repository URLs only: `http(s)://`, `ssh://`, `git://`, or scp-like `user@host:path`. Never `file://`
 * or a plain path (they would read the server's or operator's own disk), never a leading `-` in the user or host
 * (an option to git or ssh: `ssh://git@-oProxyCommand=…`, CVE-2017-1000117).
 */
const REPO_URL = /^(https?|ssh|git):\/\/(?:[^\s/@-][^\s/@]*@)?[^\s/@-][^\s/@]*(?:\/\S*)?$|^\w[\w.-]*@\w[\w.-]*:\S+$/;

/** Why `url` is not an acceptable `source.git.repoURL`, or undefined when it is. */
export function repoURLProblem(url: unknown): string | undefined {
  if (typeof url !== 'string' || url === '') return 'source.git.repoURL is required';
  // The URL itself is not repeated: it may carry credentials, and this message lands in the App's conditions.
  if (!REPO_URL.test(url)) return 'source.git.repoURL must be an http(s), ssh or git URL';
  return undefined;
}
