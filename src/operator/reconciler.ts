/**
 * The reconciler: an ordered list of stages run for one App key.
 *
 *   load → finalize (deleting) | stalled? | ensure finalizer → decide → destination → source driver (resolve
 *   head and target revision) → render → inventory → apply → prune → health → status (written once, at the end)
 *   → events and notifications → requeue
 *
 * Level-based: every decision comes from the App's spec and status plus what is live, never from the event that
 * woke it. Each stage fails with a StageError naming the stage and what to do next: a transient failure backs off
 * per App (the work queue's backoff), a `wait` requeues after `errorRequeueMs`, a stall (a spec that cannot work)
 * sets the Stalled condition and is not retried until the App's generation changes. Nothing is pruned after a
 * failed render or apply. What is live comes from the destination's watch cache (src/operator/live), which also
 * re-queues an App when one of its objects changes health; what the App owns is its inventory (status.inventory).
 */
import type { Logger } from 'pino';
import { APP_API_VERSION, APP_KIND } from '../core/app-names.ts';
import type { AppResource, HealthCheck, Operation, OperationState, SyncStatus } from '../core/app-schema.ts';
import { APPROVAL_MESSAGE, isStalled, syncStatusOf } from '../core/app-state.ts';
import { describeError, InputError, type RetryHint } from '../core/errors.ts';
import { applyObjects, ensureNamespace } from '../engine/apply.ts';
import { hashObjects, prepareObjects } from '../engine/desired.ts';
import { assessHealth, type HealthResult } from '../engine/health/assess.ts';
import type { CelSandbox } from '../engine/health/cel/sandbox.ts';
import { CheckSet, validateAppChecks } from '../engine/health/custom.ts';
import { entryOf, type InventoryEntry, loadInventory, mergeInventory } from '../engine/inventory.ts';
import { type AppKey, FINALIZER } from '../engine/labels.ts';
import { driverFor, type SourceDrivers } from '../engine/sources/index.ts';
import {
  type AnyObject,
  compareVersions,
  hintOf,
  isConflict,
  isUnreachable,
  type ObjectClient,
} from '../kube/index.ts';
import type { OutboundPolicy } from '../net/outbound.ts';
import { Announcer, type OpOutcome } from './announce.ts';
import { FencedError } from './fence.ts';
import { type DestinationCache, destinationOf, type LiveCache } from './live/index.ts';
import type { OperatorMetrics } from './metrics.ts';
import type { Requeue } from './queue.ts';
import { inStage, type Stage, StageError } from './stage-error.ts';
import { alreadyStaged, decide, holdMessage, type Intent, needsAutomatedSync } from './stages/decide.ts';
import { deleteApplied, orphans } from './stages/finalize.ts';
import { prune } from './stages/prune.ts';
import { restartWorkloads } from './stages/restart.ts';
import { type Failure, nextStatus, type Outcome, writeStatus } from './stages/status.ts';

export { FencedError } from './fence.ts';

/** Timing and bounds of the reconciler (production defaults in DEFAULT_TUNING). */
export interface ReconcilerTuning {
  syncPeriodMs: number;
  /** Requeue after a failure that waits for a change (`wait`), and the cap of the transient-failure backoff. */
  errorRequeueMs: number;
  /** First delay of the per-App backoff after a transient failure; it doubles up to `errorRequeueMs`. */
  backoffBaseMs: number;
  /** Bound of status.previousRevisions. */
  maxHistory: number;
  /** After this long, a cascade deletion that keeps failing gives up and releases the App. */
  deleteTimeoutMs: number;
}

/**
 * Production defaults: resync 60 s, 30 s after errors (transient ones back off from 1 s up to that), 50 revisions,
 * 10 min delete timeout. No timed requeue while settling: the live cache re-queues an App when one of its objects
 * changes health, and the sync period is the safety net.
 */
export const DEFAULT_TUNING: ReconcilerTuning = {
  syncPeriodMs: 60_000,
  errorRequeueMs: 30_000,
  backoffBaseMs: 1_000,
  maxHistory: 50,
  deleteTimeoutMs: 10 * 60_000,
};

/** Everything the reconciler needs, passed in once (no globals, no environment). */
export interface ReconcilerDeps {
  mgmt: ObjectClient;
  /** One driver per deployable source type: the reconciler resolves and renders only through them. */
  sources: SourceDrivers;
  /** The cluster an App deploys to. The management cluster for an empty destination.cluster. */
  targetFor: (app: AppResource) => Promise<ObjectClient>;
  /** Told when an App's remote destination did not answer, so its connection is checked again at once. */
  onUnreachable?: (app: AppResource) => void;
  /** The live state of every destination (watch caches of the managed objects). */
  live: LiveCache;
  /** Custom health checks: the CEL sandbox they run in, and the org's checks by org namespace (never rejects). */
  healthChecks?: { sandbox: CelSandbox; org: (orgNamespace: string) => Promise<HealthCheck[]> };
  /**
   * The App as the controller's informer holds it: a reconcile reads it there (or this process's own newer write)
   * instead of GETting it. Without it, or when the cache does not have the App, the reconcile GETs it.
   */
  cachedApp?: (key: AppKey) => AppResource | undefined;
  publicURL: string;
  /** Where notifications may go (SVC_OUTBOUND_SCOPE). */
  outbound: OutboundPolicy;
  identity: string;
  logger: Logger;
  metrics: OperatorMetrics;
  tuning: ReconcilerTuning;
  /**
   * Fencing: false once this process must stop writing (leadership lost, or shut down mid-reconcile). Checked
   * before every write, so a deposed leader never races the new one.
   */
  mayWrite?: () => boolean;
}

/** The outcome of one reconcile, for the work queue and the metrics. */
export interface ReconcileResult {
  /** When to run again (see Requeue): after ms, after the App's backoff, or not until the App changes. */
  requeue: Requeue;
  /** `stalled`: the spec cannot work; `skipped`: a stalled App woken before its spec changed. */
  result: 'success' | 'error' | 'stalled' | 'skipped' | 'gone';
}

/** How far a reconcile got, for the status of a failure. */
interface Progress {
  /** A sync was (or would have been) attempted: failures notify and record a SyncFailed event. */
  syncAttempted: boolean;
  head?: string;
  revision?: string;
  /** What status.observedRevision records (the source's `observed`, else `head`). */
  observed?: string;
  objects?: AnyObject[];
  /**
   * What the App owns so far, when it changed: an inventory just migrated from a pre-inventory status, or the
   * previous inventory plus what a partly failed apply created (written even on failure, so prune reaches it).
   */
  inventory?: InventoryEntry[];
}

/** The operation of an intent, if it has one. */
function operationOf(intent: Intent): Operation | undefined {
  return intent.kind === 'observe' ? undefined : intent.operation;
}

/** Reconciles one App at a time (the work queue guarantees one key is never reconciled twice at once). */
export class Reconciler {
  readonly #deps: ReconcilerDeps;
  readonly #announcer: Announcer;
  /**
   * The App as this process last wrote it (`namespace/name` → the write's answer), until the informer's copy is as
   * new: the watch lags a write by milliseconds, and a reconcile must not start from the version before its own.
   */
  readonly #written = new Map<string, AppResource>();

  constructor(deps: ReconcilerDeps) {
    this.#deps = deps;
    this.#announcer = new Announcer(deps);
  }

  /** Forgets what this process remembers of a deleted App (its last write). */
  forget(key: AppKey): void {
    this.#written.delete(`${key.namespace}/${key.name}`);
  }

  /** Waits for the notifications still being sent (a clean shutdown). */
  drain(): Promise<void> {
    return this.#announcer.drain();
  }

  /** Runs every stage for `key`. Never throws: failures are recorded on the App and answered with a requeue. */
  async reconcile(key: AppKey): Promise<ReconcileResult> {
    try {
      const app = await this.#timed('load', () => this.#load(key));
      if (!app) {
        this.#written.delete(`${key.namespace}/${key.name}`);
        return { requeue: undefined, result: 'gone' };
      }
      if (app.metadata.deletionTimestamp) return await this.#finalize(app);
      // A stalled App waits for a new generation, whatever else woke it (leadership, annotations, workloads).
      if (isStalled(app)) return { requeue: undefined, result: 'skipped' };
      return await this.#run(await this.#ensureFinalizer(app));
    } catch (err) {
      if (err instanceof FencedError) return { requeue: undefined, result: 'error' };
      if (isConflict(err)) return { requeue: 500, result: 'error' };
      this.#deps.logger.error({ app: key, err: describeError(err) }, 'reconcile failed');
      // Outside a stage nothing recorded a Stalled condition, so even a stall hint is retried at the error period.
      const transient = hintOf(err) === 'retry';
      return { requeue: transient ? 'backoff' : this.#deps.tuning.errorRequeueMs, result: 'error' };
    }
  }

  /** The requeue of a failure: transient → the App's backoff, wait → the error period, stall → none. */
  #requeueFor(hint: RetryHint): Requeue {
    if (hint === 'retry') return 'backoff';
    return hint === 'wait' ? this.#deps.tuning.errorRequeueMs : undefined;
  }

  /** Runs one step of a reconcile and records its duration (svc_reconcile_stage_duration_seconds{stage}). */
  async #timed<T>(step: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await run();
    } finally {
      this.#deps.metrics.stage(step, (performance.now() - started) / 1000);
    }
  }

  /** A stage (inStage: its failure becomes a StageError of `stage`), timed under `step` (default the stage). */
  #stage<T>(stage: Stage, run: () => T | Promise<T>, step: string = stage): Promise<T> {
    return this.#timed(step, () => inStage(stage, run));
  }

  /** Write barrier: throws FencedError when this process may no longer write. */
  #fence(): void {
    if (this.#deps.mayWrite && !this.#deps.mayWrite()) throw new FencedError();
  }

  /**
   * The App to reconcile: the newer of the informer's copy and this process's last write of it; a GET when the cache
   * does not have the App (not listed yet, no cache, or deleted: then a remembered write is stale and dropped). A
   * copy that another writer has since replaced only costs a conflict on write (every write carries the
   * resourceVersion it read), and that writer's change queues the App again anyway.
   */
  async #load(key: AppKey): Promise<AppResource | undefined> {
    const id = `${key.namespace}/${key.name}`;
    const cached = this.#deps.cachedApp?.(key);
    const written = this.#written.get(id);
    if (cached) {
      if (written && compareVersions(written.metadata.resourceVersion, cached.metadata.resourceVersion) === 1)
        return written;
      this.#written.delete(id);
      return cached;
    }
    this.#written.delete(id);
    const obj = await this.#deps.mgmt.get({ apiVersion: APP_API_VERSION, kind: APP_KIND, ...key });
    return obj as unknown as AppResource | undefined;
  }

  /** Remembers what a write of the App answered (see `#written`); answers it. */
  #wrote(app: AppResource): AppResource {
    this.#written.set(`${app.metadata.namespace ?? ''}/${app.metadata.name}`, app);
    return app;
  }

  #ref(app: AppResource) {
    return { apiVersion: APP_API_VERSION, kind: APP_KIND, name: app.metadata.name, namespace: app.metadata.namespace };
  }

  #key(app: AppResource): AppKey {
    return { namespace: app.metadata.namespace ?? '', name: app.metadata.name };
  }

  /** The live state of the App's destination, reached through `target`. */
  #live(app: AppResource, target: ObjectClient): DestinationCache {
    return this.#deps.live.of(destinationOf(app), target);
  }

  async #ensureFinalizer(app: AppResource): Promise<AppResource> {
    const finalizers = app.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER)) return app;
    this.#fence();
    const patch = {
      metadata: { resourceVersion: app.metadata.resourceVersion, finalizers: [...finalizers, FINALIZER] },
    };
    return this.#wrote((await this.#deps.mgmt.mergePatch(this.#ref(app), patch)) as unknown as AppResource);
  }

  /** The main path for a live App. */
  async #run(read: AppResource): Promise<ReconcileResult> {
    const { tuning } = this.#deps;
    const now = new Date().toISOString();
    const key = this.#key(read);
    const intent = decide(read);
    const op = operationOf(intent);
    const runs = intent.kind === 'sync' || intent.kind === 'restart';
    const progress: Progress = { syncAttempted: false };
    let app = read;
    let target: ObjectClient | undefined;
    let running: Promise<AppResource> | undefined;
    try {
      // A custom health check that cannot compile is a spec that cannot work: stalled before anything is applied.
      await this.#stage('health', () => validateAppChecks(app.spec.health?.checks));
      target = await this.#stage('destination', () => this.#deps.targetFor(app));
      const driver = await this.#stage('source', () => driverFor(this.#deps.sources, app));
      if (intent.kind === 'reject') throw new StageError('operation', new InputError(intent.message), 'wait');
      // Mark a picked-up operation Running while the source is resolved, rendered and applied (not before: that would
      // put one status write on every operation's path). The outcome is written only once that mark has landed, from
      // its answer; a failed mark fails the reconcile like any write (a conflict re-runs it). If this process dies
      // meanwhile, the operation is still pending (spec.operation is not consumed) and the next leader runs it.
      running =
        runs && app.status?.operationState?.phase !== 'Running'
          ? this.#timed('mark_running', () => this.#markRunning(read, intent.operation))
          : undefined;
      running?.catch(() => undefined); // awaited below on every path; not an unhandled rejection meanwhile
      progress.syncAttempted = runs || app.spec.syncPolicy?.automated === true;
      const resolving = app;
      const source = await this.#stage('source', () =>
        driver.resolve(resolving, { target: intent.kind === 'sync' ? intent.revision : 'head', operation: op }),
      );
      const { head, revision } = source;
      Object.assign(progress, { head, revision, observed: source.observed ?? head });
      const dest = target;
      const rendered = await this.#stage('render', () => driver.render(resolving, revision, dest));
      const objects = prepareObjects(rendered, key);
      progress.objects = objects;
      const hash = hashObjects(objects);
      const inventory = await this.#stage('inventory', () => loadInventory(dest, resolving));
      // An inventory just built from a pre-inventory status is written even when nothing is synced.
      if (inventory.migrated) progress.inventory = inventory.entries;
      const live = this.#live(app, dest);

      let opOutcome: OpOutcome | undefined;
      let doSync = intent.kind === 'sync';
      if (intent.kind === 'hold') {
        // Only an approval hold stages a revision (what Approve will apply); a freeze hold re-resolves on unfreeze.
        const staged = intent.reason === 'approval' ? { revision: head } : {};
        opOutcome = { operation: op, phase: 'Held', ...staged, message: holdMessage(intent.reason) };
      } else if (intent.kind === 'observe' && needsAutomatedSync(app, head, hash)) {
        if (app.spec.syncPolicy?.requiresApproval === true) {
          if (!alreadyStaged(app, head))
            opOutcome = { operation: undefined, phase: 'Held', revision: head, message: APPROVAL_MESSAGE };
        } else {
          doSync = true;
        }
      }

      const outcome: Outcome = {
        now,
        observedGeneration: app.metadata.generation,
        observedRevision: source.observed ?? head,
        syncStatus: 'Unknown',
      };
      if (doSync) {
        progress.syncAttempted = true;
        await this.#sync(app, live, objects, inventory.entries, progress);
        const url = driver.publicURL?.(app);
        outcome.applied = {
          revision,
          objectHash: hash,
          ...(source.origin ? { origin: source.origin } : {}),
          ...(url ? { url } : {}),
        };
        opOutcome = op
          ? { operation: op, phase: 'Succeeded', revision, message: `applied ${objects.length} objects` }
          : undefined;
      } else if (intent.kind === 'restart') {
        const done = await this.#stage('apply', () => restartWorkloads(live, key, inventory.entries, now));
        opOutcome = { operation: intent.operation, phase: 'Succeeded', message: `restarted ${done.length} workloads` };
      }

      if (running) app = await running;
      const appliedRevision = outcome.applied?.revision ?? app.status?.revision;
      const appliedHash = outcome.applied?.objectHash ?? app.status?.objectHash;
      const upToDate = appliedRevision === head && appliedHash === hash;
      const health = await this.#stage('health', () => this.#assess(app, live, objects, upToDate));
      const allLive = health.resources.every((r) => r.healthStatus !== 'Missing');
      outcome.syncStatus = syncStatusOf({ appliedRevision, appliedHash, head, hash, allLive });
      outcome.health = health;
      if (progress.inventory) outcome.inventory = progress.inventory;
      if (opOutcome) outcome.operationState = this.#opState(opOutcome, now);
      await this.#timed('status', () => this.#write(app, outcome));
      await this.#timed('announce', () =>
        this.#announcer.announce(app, outcome, opOutcome, doSync ? 'success' : undefined),
      );
      this.#deps.metrics.observeApp(key, outcome.syncStatus, health.status);
      return { requeue: tuning.syncPeriodMs, result: 'success' };
    } catch (err) {
      if (running) app = await running;
      if (!(err instanceof StageError)) throw err;
      return this.#fail(app, target, err, this.#failedOperation(intent, err.message, progress), progress);
    }
  }

  /**
   * What a failed reconcile records about its operation: a freeze hold still holds (it does not need the source);
   * an operation that was to run, or to be staged for approval, failed; an observing reconcile has none.
   */
  #failedOperation(intent: Intent, message: string, progress: Progress): OpOutcome | undefined {
    if (intent.kind === 'observe') return undefined;
    if (intent.kind === 'hold' && intent.reason === 'freeze') {
      return { operation: intent.operation, phase: 'Held', message: holdMessage('freeze') };
    }
    const revision = intent.kind === 'sync' && progress.objects ? { revision: progress.revision ?? '' } : {};
    return { operation: intent.operation, phase: 'Failed', ...revision, message };
  }

  /**
   * Apply, then (with syncPolicy.prune) prune what left `previous` (the inventory). Sets `progress.inventory`: what
   * the App owns afterwards. Throws StageError (apply or prune).
   */
  async #sync(
    app: AppResource,
    live: DestinationCache,
    objects: AnyObject[],
    previous: InventoryEntry[],
    progress: Progress,
  ): Promise<void> {
    const key = this.#key(app);
    this.#fence();
    const namespace = app.spec.destination.namespace;
    const ensure = async () => {
      const created = await this.#stage('apply', () => ensureNamespace(live.client, namespace, key), 'namespace');
      live.knownNamespaces.add(namespace);
      return created;
    };
    const apply = () => this.#stage('apply', () => applyObjects(live.client, objects, () => this.#fence()));
    const checked = !live.knownNamespaces.has(namespace);
    if (checked) await ensure();
    let result = await apply();
    // The namespace was taken as existing and something failed: it may have been deleted since; if so, create it
    // and apply once more.
    if (!checked && result.errors.length > 0) {
      live.knownNamespaces.delete(namespace);
      if (await ensure()) result = await apply();
    }
    const { applied, errors, hint } = result;
    live.remember(applied);
    // Until prune ran, the App owns what it owned before plus whatever this apply created.
    progress.inventory = mergeInventory(previous, applied.map(entryOf));
    if (errors.length > 0) throw new StageError('apply', new Error(errors.join('; ')), hint);
    if (app.spec.syncPolicy?.prune === true) await this.#prune(app, live, objects, previous, progress);
  }

  /**
   * Prune: deletes the objects of `previous` (the inventory) that left the rendered set; what failed to delete stays
   * in `progress.inventory`, to be retried. The one place prune runs.
   */
  async #prune(
    app: AppResource,
    live: DestinationCache,
    objects: AnyObject[],
    previous: InventoryEntry[],
    progress: Progress,
  ): Promise<void> {
    this.#fence();
    const pruned = await this.#stage('prune', () => prune(live, this.#key(app), previous, objects));
    progress.inventory = mergeInventory(pruned.kept, objects.map(entryOf));
    if (pruned.deleted.length > 0) {
      await this.#announcer.event(app, 'Normal', 'Pruned', `deleted ${pruned.deleted.join(', ')}`);
    }
    if (pruned.errors.length > 0) throw new StageError('prune', new Error(pruned.errors.join('; ')), 'retry');
  }

  /**
   * Health of `objects` as live on the destination (its watch cache), with the App's and its org's custom checks.
   * The one place health is assessed.
   */
  async #assess(
    app: AppResource,
    live: DestinationCache,
    objects: AnyObject[],
    inSync: boolean,
  ): Promise<HealthResult> {
    const checks = this.#deps.healthChecks;
    const own = app.spec.health?.checks ?? [];
    const org = checks ? await checks.org(app.metadata.namespace ?? '') : [];
    const custom = checks && (own.length > 0 || org.length > 0) ? new CheckSet(checks.sandbox, org, own) : undefined;
    return assessHealth(live, objects, inSync, custom);
  }

  /** Records a failed reconcile: SyncError (and Stalled), the operation's record, health of what is known. */
  async #fail(
    app: AppResource,
    target: ObjectClient | undefined,
    err: StageError,
    op: OpOutcome | undefined,
    progress: Progress,
  ): Promise<ReconcileResult> {
    const now = new Date().toISOString();
    const cluster = app.spec.destination.cluster ?? '';
    // A remote destination that does not answer: its own reason, and its health is not known (not "as last seen").
    const unreachable = cluster !== '' && isUnreachable(err);
    const failure: Failure = {
      stage: err.stage,
      hint: err.retry,
      message: err.message,
      ...(unreachable ? { reason: 'ClusterUnreachable' } : {}),
    };
    let health: HealthResult | undefined;
    if (unreachable) {
      this.#deps.onUnreachable?.(app);
      health = {
        status: 'Unknown',
        reason: `cluster "${cluster}" cannot be reached`,
        resources: app.status?.resources ?? [],
      };
    } else if (target) {
      const known =
        progress.objects ??
        ((app.status?.resources ?? []).map((r) => ({
          apiVersion: r.apiVersion,
          kind: r.kind,
          metadata: { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) },
        })) as AnyObject[]);
      health = await this.#assess(app, this.#live(app, target), known, false).catch(() => undefined);
    }
    const syncStatus: SyncStatus = app.status?.revision ? 'OutOfSync' : 'Unknown';
    const outcome: Outcome = {
      now,
      observedGeneration: app.metadata.generation,
      syncStatus,
      error: failure,
      ...(progress.observed ? { observedRevision: progress.observed } : {}),
      ...(health ? { health } : {}),
      ...(progress.inventory ? { inventory: progress.inventory } : {}),
      ...(op ? { operationState: this.#opState(op, now) } : {}),
    };
    const previouslyFailing = app.status?.conditions?.some((c) => c.type === 'SyncError' && c.status === 'True');
    try {
      await this.#write(app, outcome);
    } catch (writeErr) {
      if (writeErr instanceof FencedError) throw writeErr;
      if (isConflict(writeErr)) return { requeue: 500, result: 'error' };
      this.#deps.logger.error({ err: describeError(writeErr) }, 'status write failed');
    }
    this.#deps.logger.warn(
      { app: this.#key(app), stage: failure.stage, hint: failure.hint, err: failure.message },
      'sync error',
    );
    // Notify per failed operation, and per transition into failure for automated syncs (not every retry).
    const opFailed = op?.phase === 'Failed';
    const notifyFailure = opFailed || (progress.syncAttempted && !previouslyFailing);
    await this.#announcer.announce(app, outcome, op, notifyFailure ? 'failure' : undefined, progress.revision);
    if (!opFailed && progress.syncAttempted && !previouslyFailing)
      await this.#announcer.event(app, 'Warning', 'SyncFailed', failure.message);
    this.#deps.metrics.observeApp(this.#key(app), syncStatus, health?.status ?? app.status?.healthStatus ?? 'Unknown');
    return { requeue: this.#requeueFor(failure.hint), result: failure.hint === 'stall' ? 'stalled' : 'error' };
  }

  #opState(o: OpOutcome, now: string): OperationState {
    const op = o.operation;
    return {
      kind: op?.kind ?? 'Sync',
      initiatedAt: op?.initiatedAt ?? now,
      ...(op?.id ? { id: op.id } : {}),
      ...(op?.triggeredBy ? { triggeredBy: op.triggeredBy } : {}),
      phase: o.phase,
      ...(o.revision ? { revision: o.revision } : {}),
      message: o.message,
      ...(o.phase === 'Held' ? {} : { finishedAt: now }),
    };
  }

  async #markRunning(app: AppResource, op: Operation): Promise<AppResource> {
    this.#fence();
    // Syncing (not the last Synced) while the operation runs, so a client waiting on status never mistakes the
    // previous state for the operation's result.
    const status = {
      ...(app.status ?? {}),
      syncStatus: 'Syncing' as const,
      operationState: {
        kind: op.kind,
        initiatedAt: op.initiatedAt,
        ...(op.id ? { id: op.id } : {}),
        ...(op.triggeredBy ? { triggeredBy: op.triggeredBy } : {}),
        phase: 'Running' as const,
        message: `picked up by ${this.#deps.identity}`,
      },
    };
    return this.#wrote(await writeStatus(this.#deps.mgmt, app, status));
  }

  async #write(app: AppResource, outcome: Outcome): Promise<void> {
    const next = nextStatus(app.status, outcome, this.#deps.tuning.maxHistory);
    // A resync that changed nothing writes nothing (no etcd write, no watch event every period).
    if (JSON.stringify(next) === JSON.stringify(app.status ?? {})) return;
    this.#fence();
    this.#wrote(await writeStatus(this.#deps.mgmt, app, next));
  }

  /**
   * Deletion: cascade (default) deletes every object of the App's inventory still carrying its labels, then
   * releases the finalizer; `cd.svc.space/delete-policy: orphan` releases it at once. If the destination stays
   * unreachable past `deleteTimeoutMs`, the App is released anyway (with a Warning event) so deletion never wedges
   * forever.
   */
  async #finalize(app: AppResource): Promise<ReconcileResult> {
    const finalizers = app.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER)) return { requeue: undefined, result: 'gone' };
    if (!orphans(app)) {
      this.#fence();
      try {
        const deleted = await deleteApplied(this.#live(app, await this.#deps.targetFor(app)), app);
        if (deleted > 0) await this.#announcer.event(app, 'Normal', 'Deleted', `deleted ${deleted} objects`);
      } catch (err) {
        const since = Date.parse(app.metadata.deletionTimestamp ?? '') || Date.now();
        if (Date.now() - since < this.#deps.tuning.deleteTimeoutMs) {
          await this.#announcer.event(
            app,
            'Warning',
            'DeleteFailed',
            `cannot delete applied objects, retrying: ${describeError(err)}`,
          );
          return { requeue: this.#deps.tuning.errorRequeueMs, result: 'error' };
        }
        await this.#announcer.event(
          app,
          'Warning',
          'DeleteAbandoned',
          `gave up deleting applied objects: ${describeError(err)}`,
        );
      }
    }
    this.#fence();
    const released = finalizers.filter((f) => f !== FINALIZER);
    await this.#deps.mgmt.mergePatch(this.#ref(app), {
      metadata: { resourceVersion: app.metadata.resourceVersion, finalizers: released },
    });
    this.#written.delete(`${app.metadata.namespace ?? ''}/${app.metadata.name}`);
    return { requeue: undefined, result: 'gone' };
  }
}
