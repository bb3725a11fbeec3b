/**
 * The reconciler: an ordered list of stages run for one App key.
 *
 *   load → finalize (deleting) | stalled? | ensure finalizer → decide → dependencies (hold while one is not
 *   ready) → destination → source driver (resolve head and target revision) → render → inventory → apply → prune → health → status (written once, at the end)
 *   → events and notifications → requeue
 *
 * Level-based: every decision comes from the App's spec and status plus what is live, never from the event that
 * woke it. Each stage fails with a StageError naming the stage and what to do next: a transient failure backs off
 * per App (the work queue's backoff), a `wait` requeues after `errorRequeueMs`, a stall (a spec that cannot work)
 * sets the Stalled condition and is not retried until the App's generation changes. Nothing is pruned after a
 * failed render or apply. What is live comes from the destination's watch cache (src/operator/live), which also
 * re-queues an App when one of its objects changes health; what the App owns is its inventory (status.inventory).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { APP_API_VERSION, APP_KIND } from '../core/app-names.ts';
import type { AppResource, HealthCheck, HeldAt, Operation, OperationState, SyncStatus } from '../core/app-schema.ts';
import {
  APPROVAL_MESSAGE,
  HOLD_ANNOTATION,
  heldAtOf,
  holdAnnotation,
  isStalled,
  newStamp,
  operationPatch,
  revisionTagOf,
  syncStatusOf,
  terminationRequested,
} from '../core/app-state.ts';
import { msUntilApprovalExpiry } from '../core/approvals.ts';
import {
  AUTO_ROLLBACK_ACTOR,
  AUTO_ROLLBACK_ANNOTATION,
  type AutoRollbackRecord,
  autoRollbackDelayMs,
  decideAutoRollback,
} from '../core/auto-rollback.ts';
import type { AppName } from '../core/dependencies.ts';
import { describeError, InputError, type RetryHint } from '../core/errors.ts';
import { importPending } from '../core/import/take-over.ts';
import { orgSlugOf } from '../core/names.ts';
import { evaluateWindows, type SourcedWindow, type WindowVerdict, windowHoldMessage } from '../core/windows.ts';
import { applyObjects } from '../engine/apply.ts';
import { hashObjects, prepareObjects } from '../engine/desired.ts';
import { describeDrift, driftOfAll, type ObjectDrift, respectAll } from '../engine/drift.ts';
import { assessHealth, type HealthResult } from '../engine/health/assess.ts';
import type { CelSandbox } from '../engine/health/cel/sandbox.ts';
import { CheckSet } from '../engine/health/custom.ts';
import {
  entryOf,
  type InventoryEntry,
  type LoadedInventory,
  loadInventory,
  mergeInventory,
} from '../engine/inventory.ts';
import { type AppKey, createdForLabels, FINALIZER } from '../engine/labels.ts';
import { driverFor, type SourceDrivers } from '../engine/sources/index.ts';
import { describeHook, HOOK_PHASES, type HookPhase, isStaged, planSync } from '../engine/sync-plan.ts';
import {
  type AnyObject,
  ensureNamespace,
  hintOf,
  isConflict,
  isNotFound,
  isUnreachable,
  MutationCache,
  type ObjectClient,
  withoutManagedFields,
} from '../kube/index.ts';
import type { OutboundPolicy } from '../net/outbound.ts';
import { inSpan } from '../trace.ts';
import { Announcer, type OpOutcome } from './announce.ts';
import { FencedError } from './fence.ts';
import { type DestinationCache, destinationOf, type LiveCache } from './live/index.ts';
import type { OperatorMetrics } from './metrics.ts';
import type { Requeue } from './queue.ts';
import { type Progress, ReconcileRun } from './reconcile-run.ts';
import { SelfHealBrake } from './self-heal.ts';
import { inStage, type Stage, StageError } from './stage-error.ts';
import {
  alreadyHeldByWindow,
  alreadyStaged,
  approvalExpiry,
  decide,
  followsHead,
  holdMessage,
  type Intent,
  mayHeal,
  needsAutomatedSync,
  newerSyncRequest,
  pinnedRevision,
  withDependencies,
  withWindows,
} from './stages/decide.ts';
import { checkDependencies } from './stages/dependencies.ts';
import { deleteApplied, orphans, type PostDelete } from './stages/finalize.ts';
import { appliedResources, listedResources, operationResource } from './stages/op-resources.ts';
import { describeRef, prune, type Tick } from './stages/prune.ts';
import { restartWorkloads } from './stages/restart.ts';
import { type Failure, nextStatus, type Outcome, REASON_BY_STAGE, writeStatus } from './stages/status.ts';
import {
  DeadlineExceededError,
  operationTimeoutOf,
  runFailHooks,
  runPhase,
  runSyncWaves,
  SupersededError,
  TerminatedError,
  tick,
  type WaveContext,
} from './stages/waves.ts';

export { FencedError } from './fence.ts';

/** True when the App is Stalled by a dependency cycle (see the dependencies stage). */
function stalledByDependencies(app: AppResource): boolean {
  const reason = REASON_BY_STAGE.dependencies;
  return (
    app.status?.conditions?.some((c) => c.type === 'Stalled' && c.status === 'True' && c.reason === reason) === true
  );
}

/** How long a reconcile prefers this process's own write of an App over the informer's copy at most. */
const WRITTEN_TTL_MS = 60_000;

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
  /** selfHeal's brake: at most this many reverts per App within `selfHealWindowMs` (./self-heal.ts). */
  selfHealLimit: number;
  selfHealWindowMs: number;
  /**
   * How long a staged sync (hooks, waves: ./stages/waves.ts) may wait for its hooks and waves before it fails with
   * reason DeadlineExceeded, unless the App's spec.syncPolicy.operationTimeout says otherwise.
   */
  operationTimeoutMs: number;
}

/**
 * Production defaults: resync 60 s, 30 s after errors (transient ones back off from 1 s up to that), 50 revisions,
 * 10 min delete timeout, 5 selfHeal reverts per App per 10 minutes, 10 min for a staged sync's hooks and waves. No
 * timed requeue while settling: the live cache re-queues an App when one of its objects changes health or drifts, and
 * the sync period is the safety net.
 */
export const DEFAULT_TUNING: ReconcilerTuning = {
  syncPeriodMs: 60_000,
  errorRequeueMs: 30_000,
  backoffBaseMs: 1_000,
  maxHistory: 50,
  deleteTimeoutMs: 10 * 60_000,
  selfHealLimit: 5,
  selfHealWindowMs: 10 * 60_000,
  operationTimeoutMs: 10 * 60_000,
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
   * Every delivery window that applies to an App (its own, its cluster's, its org's: ./windows.ts). Without it, only
   * the App's own apply.
   */
  windows?: (app: AppResource) => Promise<SourcedWindow[]>;
  /** The clock delivery windows are read by (ms since the epoch; default Date.now): tests set it, not wait. */
  clock?: () => number;
  /**
   * Fencing: false once this process must stop writing for the App (leadership lost, the App moved to another
   * shard, or shut down mid-reconcile). Checked before every write, so a deposed leader or a shard that handed the
   * App over never races the new owner.
   */
  mayWrite?: (app: AppKey) => boolean;
  /**
   * True once this process is stopping cleanly. A running reconcile still finishes its applies, but a staged sync's
   * waits (hooks, waves) end at their next tick as if fenced: the operation stays Running and the next process
   * resumes it, so a stop never waits on a hook that may run for as long as the operation's deadline.
   */
  stopping?: () => boolean;
}

/** The outcome of one reconcile, for the work queue and the metrics. */
export interface ReconcileResult {
  /** When to run again (see Requeue): after ms, after the App's backoff, or not until the App changes. */
  requeue: Requeue;
  /** `stalled`: the spec cannot work; `skipped`: a stalled App woken before its spec changed. */
  result: 'success' | 'error' | 'stalled' | 'skipped' | 'gone';
}

/** The failure a StageError records, with the reason more precise than its stage's when there is one. */
function failureOf(err: StageError, unreachable: boolean): Failure {
  let reason: string | undefined;
  if (unreachable) reason = 'ClusterUnreachable';
  else if (err.cause instanceof DeadlineExceededError) reason = 'DeadlineExceeded';
  else if (err.cause instanceof TerminatedError) reason = 'Terminated';
  else if (err.cause instanceof SupersededError) reason = 'Superseded';
  return { stage: err.stage, hint: err.retry, message: err.message, ...(reason ? { reason } : {}) };
}

/** Reconciles one App at a time (the work queue guarantees one key is never reconciled twice at once). */
export class Reconciler {
  readonly #deps: ReconcilerDeps;
  readonly #announcer: Announcer;
  /**
   * The App as this process last wrote it, until the informer's copy is as new (src/kube's MutationCache): the watch
   * lags a write by milliseconds, and a reconcile must not start from the version before its own.
   */
  readonly #written = new MutationCache<AppResource>({ ttlMs: WRITTEN_TTL_MS, includeAdds: false });
  readonly #brake: SelfHealBrake;

  constructor(deps: ReconcilerDeps) {
    this.#deps = deps;
    this.#announcer = new Announcer(deps);
    this.#brake = new SelfHealBrake({ limit: deps.tuning.selfHealLimit, windowMs: deps.tuning.selfHealWindowMs });
  }

  /**
   * Tells a version of an App the informer delivered: a remembered write it is as new as is dropped now, not when
   * its time runs out (a converge of thousands of Apps otherwise holds a copy of each for a minute).
   */
  observed(app: AppResource): void {
    this.#written.delivered(app);
  }

  /** App writes remembered until the informer delivers them (the `svc_operator_remembered_writes` gauge). */
  get rememberedWrites(): number {
    return this.#written.size;
  }

  /** Forgets what this process remembers of a deleted App (its last write, its selfHeal reverts). */
  forget(key: AppKey): void {
    this.#written.forget(`${key.namespace}/${key.name}`);
    this.#brake.forget(key);
  }

  /** Waits for the notifications still being sent (a clean shutdown). */
  drain(): Promise<void> {
    return this.#announcer.drain();
  }

  /**
   * Runs every stage for `key`. Never throws: failures are recorded on the App and answered with a requeue. Traced
   * as one span `reconcile` (the App, its org, the result) with a child span per stage (`#timed`).
   */
  reconcile(key: AppKey): Promise<ReconcileResult> {
    const attributes = {
      'svc.app.name': key.name,
      'svc.app.namespace': key.namespace,
      'svc.org': orgSlugOf(key.namespace) ?? '',
    };
    return inSpan('reconcile', attributes, async (span) => {
      const result = await this.#reconcile(key);
      span.setAttribute('svc.reconcile.result', result.result);
      return result;
    });
  }

  async #reconcile(key: AppKey): Promise<ReconcileResult> {
    try {
      const app = await this.#timed('load', () => this.#load(key));
      if (!app) {
        this.forget(key);
        return { requeue: undefined, result: 'gone' };
      }
      if (app.metadata.deletionTimestamp) return await this.#finalize(app);
      // A stalled App waits for a new generation, whatever else woke it (leadership, annotations, workloads); one
      // stalled by a dependency cycle is checked again (the cycle may have been broken in another App).
      if (isStalled(app) && !stalledByDependencies(app)) return { requeue: undefined, result: 'skipped' };
      return await this.#run(await this.#ensureFinalizer(app));
    } catch (err) {
      if (err instanceof FencedError) return { requeue: undefined, result: 'error' };
      if (isConflict(err)) return { requeue: 500, result: 'error' };
      if (await this.#isGone(key, err)) return this.#gone(key, err);
      this.#deps.logger.error({ app: key, err: describeError(err) }, 'reconcile failed');
      // Outside a stage nothing recorded a Stalled condition, so even a stall hint is retried at the error period.
      const transient = hintOf(err) === 'retry';
      return { requeue: transient ? 'backoff' : this.#deps.tuning.errorRequeueMs, result: 'error' };
    }
  }

  /**
   * True when `err` is a 404 and the App itself is gone (a write of it raced its deletion: the finalizer released
   * by an earlier reconcile, a status write after the App was deleted). Checked with a read of the App, so a 404
   * about anything else is still an error.
   */
  async #isGone(key: AppKey, err: unknown): Promise<boolean> {
    if (!isNotFound(err)) return false;
    const app = await this.#deps.mgmt.get({ apiVersion: APP_API_VERSION, kind: APP_KIND, ...key }).catch(() => null);
    return app === undefined;
  }

  /** Ends the reconcile of an App that is gone: not an error, so at debug level only. */
  #gone(key: AppKey, err: unknown): ReconcileResult {
    this.#deps.logger.debug({ app: key, err: describeError(err) }, 'app gone during reconcile');
    this.forget(key);
    return { requeue: undefined, result: 'gone' };
  }

  /** The requeue of a failure: transient → the App's backoff, wait → the error period, stall → none. */
  #requeueFor(hint: RetryHint): Requeue {
    if (hint === 'retry') return 'backoff';
    return hint === 'wait' ? this.#deps.tuning.errorRequeueMs : undefined;
  }

  /**
   * Runs one step of a reconcile in a span `reconcile.<step>` and records its duration
   * (svc_reconcile_stage_duration_seconds{stage}).
   */
  #timed<T>(step: string, run: () => Promise<T>): Promise<T> {
    return inSpan(`reconcile.${step}`, { 'svc.reconcile.stage': step }, async () => {
      const started = performance.now();
      try {
        return await run();
      } finally {
        this.#deps.metrics.stage(step, (performance.now() - started) / 1000);
      }
    });
  }

  /** A stage (inStage: its failure becomes a StageError of `stage`), timed under `step` (default the stage). */
  #stage<T>(stage: Stage, run: () => T | Promise<T>, step: string = stage): Promise<T> {
    return this.#timed(step, () => inStage(stage, run));
  }

  /**
   * The barrier of a staged sync's or a deletion's waits: the write barrier, and a clean stop (see
   * ReconcilerDeps.stopping: the wait ends and the next process resumes it).
   */
  #waitFence(key: AppKey): void {
    this.#fence(key);
    if (this.#deps.stopping?.()) throw new FencedError();
  }

  /** Write barrier: throws FencedError when this process may no longer write for the App `key`. */
  #fence(key: AppKey): void {
    if (this.#deps.mayWrite && !this.#deps.mayWrite(key)) throw new FencedError();
  }

  /**
   * The App to reconcile: the newer of the informer's copy and this process's last write of it; a GET when the cache
   * does not have the App (not listed yet, no cache, or deleted: then a remembered write is stale and dropped). A
   * copy that another writer has since replaced only costs a conflict on write (every write carries the
   * resourceVersion it read), and that writer's change queues the App again anyway.
   */
  async #load(key: AppKey): Promise<AppResource | undefined> {
    const app = this.#written.newest(`${key.namespace}/${key.name}`, this.#deps.cachedApp?.(key));
    if (app) return app;
    const obj = await this.#deps.mgmt.get({ apiVersion: APP_API_VERSION, kind: APP_KIND, ...key });
    return obj as unknown as AppResource | undefined;
  }

  /**
   * Remembers what a write of the App answered (see `#written`), without its managedFields as the informer keeps
   * it (nothing a reconcile reads is there, and it is most of an App's bytes); answers the write unchanged.
   */
  #wrote(app: AppResource): AppResource {
    this.#written.wrote(withoutManagedFields(app));
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
    this.#fence(this.#key(app));
    const patch = {
      metadata: { resourceVersion: app.metadata.resourceVersion, finalizers: [...finalizers, FINALIZER] },
    };
    return this.#wrote((await this.#deps.mgmt.mergePatch(this.#ref(app), patch)) as unknown as AppResource);
  }

  /**
   * The stages of a live App's reconcile, in order (like source-controller's `[]reconcileFunc`): each reads what the
   * stages before it put on the run and adds its own (./reconcile-run.ts); the first failure, a StageError, ends the
   * run and is recorded on the App (`#fail`).
   */
  readonly #stages: ReadonlyArray<(run: ReconcileRun) => Promise<void>> = [
    (run) => this.#checkSpec(run),
    (run) => this.#dependencies(run),
    (run) => this.#windows(run),
    (run) => this.#destination(run),
    (run) => this.#markRunning(run),
    (run) => this.#resolve(run),
    (run) => this.#render(run),
    (run) => this.#loadInventory(run),
    (run) => this.#plan(run),
    (run) => this.#apply(run),
    (run) => this.#assessHealth(run),
    (run) => this.#autoRollback(run),
    (run) => this.#record(run),
  ];

  /**
   * When to reconcile again after a successful run: the sync period, or sooner when a stage asks (auto-rollback's
   * delay, a delivery window that may open) or a sync held for approval expires before it (the expiry drops it on
   * time, not at the next resync).
   */
  #nextRun(run: ReconcileRun): number {
    const period = this.#deps.tuning.syncPeriodMs;
    const state = run.outcome.operationState ?? run.read.status?.operationState;
    const after = { ...run.read, status: { ...run.read.status, ...(state ? { operationState: state } : {}) } };
    const until = msUntilApprovalExpiry(after as AppResource, Date.parse(run.now));
    // A stage may ask for sooner still (auto-rollback: when its delay runs out).
    const asked = Math.min(
      period,
      run.requeueInMs ?? Number.POSITIVE_INFINITY,
      run.windowRequeueMs ?? Number.POSITIVE_INFINITY,
    );
    return until === undefined ? asked : Math.min(asked, until + 100);
  }

  /** The main path for a live App: its stages in order. */
  async #run(read: AppResource): Promise<ReconcileResult> {
    const run = new ReconcileRun(read, this.#key(read), decide(read));
    try {
      for (const stage of this.#stages) await stage(run);
      return { requeue: this.#nextRun(run), result: 'success' };
    } catch (err) {
      if (run.running) run.app = await run.running;
      if (!(err instanceof StageError)) throw err;
      return this.#fail(run, err);
    }
  }

  /** health (spec): a custom health check that cannot compile cannot work: stalled before anything is applied. */
  async #checkSpec(run: ReconcileRun): Promise<void> {
    const checks = run.app.spec.health?.checks;
    if (!checks?.length) return;
    // Loaded on first use: most operators never run a custom check (see validateAppChecks).
    const { validateAppChecks } = await import('../engine/health/cel/compile.ts');
    await this.#stage('health', () => validateAppChecks(checks));
  }

  /**
   * dependencies: a dependency cycle through the App stalls it; while a dependency is not ready, a sync is held
   * (and an automated one skipped in plan), recorded in status.blockedBy. Reads the informer's copies.
   */
  async #dependencies(run: ReconcileRun): Promise<void> {
    const load = (ref: AppName) => this.#load(ref);
    run.blockedBy = await this.#stage('dependencies', () => checkDependencies(run.read, load));
    run.intent = withDependencies(run.intent, run.blockedBy);
  }

  /**
   * windows: whether the App's delivery windows (its own, its cluster's, its org's) let a sync run now, by the
   * operator's clock; a sync they block is held naming the window (an overriding request runs). While they block,
   * the App is requeued for the moment they may open, not polled.
   */
  async #windows(run: ReconcileRun): Promise<void> {
    const own = run.read.spec.syncPolicy?.windows ?? [];
    const windows = this.#deps.windows
      ? await this.#deps.windows(run.read)
      : own.map((w) => ({ ...w, source: 'app' as const }));
    if (windows.length === 0) return;
    const now = this.#deps.clock?.() ?? Date.now();
    run.window = evaluateWindows(windows, new Date(now));
    run.intent = withWindows(run.intent, run.window);
    if (!run.window.open && run.window.changesAt) {
      // A little past the opening, so the clock read then is inside it.
      run.windowRequeueMs = Math.max(1_000, run.window.changesAt.getTime() - now + 250);
    }
  }

  /** destination: the cluster the App deploys to and its source's driver; an operation that cannot run stops here. */
  async #destination(run: ReconcileRun): Promise<void> {
    run.target = await this.#stage('destination', () => this.#deps.targetFor(run.app));
    run.driver = await this.#stage('source', () => driverFor(this.#deps.sources, run.app));
    if (run.intent.kind === 'reject') throw new StageError('operation', new InputError(run.intent.message), 'wait');
    const op = run.operation;
    if (op && run.runsOperation && terminationRequested(run.read, op)) {
      // Running: its last run ended without recording an outcome (a lost write, a process that died).
      const when = run.read.status?.operationState?.phase === 'Running' ? '' : ' before it ran';
      throw new StageError('operation', new TerminatedError(`operation terminated by request${when}`), 'wait');
    }
  }

  /**
   * Marks a picked-up operation Running while the source is resolved, rendered and applied (not before: that would
   * put one status write on every operation's path). The outcome is written only once that mark has landed, from its
   * answer; a failed mark fails the reconcile like any write (a conflict re-runs it). If this process dies meanwhile,
   * the operation is still pending (spec.operation is not consumed) and the next leader runs it.
   */
  async #markRunning(run: ReconcileRun): Promise<void> {
    const { intent, read } = run;
    if ((intent.kind === 'sync' || intent.kind === 'restart') && read.status?.operationState?.phase !== 'Running') {
      const running = this.#timed('mark_running', () => this.#writeRunning(read, intent.operation));
      running.catch(() => undefined); // awaited on every path; not an unhandled rejection meanwhile
      run.running = running;
    }
    run.progress.syncAttempted = run.runsOperation || read.spec.syncPolicy?.automated === true;
  }

  /** resolve: the upstream head and the revision to render (the operation's, or the head). */
  async #resolve(run: ReconcileRun): Promise<void> {
    const { intent, read, driver } = run;
    // While a rollback stands, an observing reconcile renders its revision: what automated sync and selfHeal keep.
    run.pinned = pinnedRevision(read, { now: Date.parse(run.now), syncPeriodMs: this.#deps.tuning.syncPeriodMs });
    const request = {
      target: intent.kind === 'sync' ? intent.revision : (run.pinned ?? 'head'),
      operation: run.operation,
    };
    run.source = await this.#stage('source', () => driver.resolve(read, request));
    const { head, revision, observed } = run.source;
    Object.assign(run.progress, { head, revision, observed: observed ?? head });
  }

  /** render: the App's objects at that revision, prepared as they are applied, and the hash of that set. */
  async #render(run: ReconcileRun): Promise<void> {
    const dest = run.destination;
    const rendered = await this.#stage('render', () => run.driver.render(run.read, run.source.revision, dest));
    const prepared = prepareObjects(rendered, run.key);
    // Hooks are run around the apply, never applied with the App's objects nor counted in its inventory or drift;
    // the hash covers them too, so a changed hook is a change to sync.
    run.plan = await this.#stage('render', () => planSync(prepared));
    run.objects = run.plan.objects;
    run.progress.objects = run.objects;
    run.hash = hashObjects(prepared);
  }

  /** inventory: what the App owns (one just migrated is written even if nothing syncs); the destination's live state. */
  async #loadInventory(run: ReconcileRun): Promise<void> {
    const dest = run.destination;
    run.inventory = await this.#stage('inventory', () => loadInventory(dest, run.read));
    if (run.inventory.migrated) run.progress.inventory = run.inventory.entries;
    run.live = this.#live(run.app, dest);
  }

  /**
   * plan: a hold records Held (an approval hold stages the head, what Approve will apply; a freeze hold re-resolves on
   * unfreeze); an automated App whose upstream or rendered set moved syncs, or stages the head for approval once.
   */
  async #plan(run: ReconcileRun): Promise<void> {
    const { app } = run;
    const { head, observed } = run.source;
    const expired = run.intent.kind === 'observe' ? approvalExpiry(app, Date.parse(run.now)) : undefined;
    if (expired) {
      // Past its approval expiry, a held sync is dropped: nothing is applied, and it is not staged again.
      run.opOutcome = expired;
      run.approvalExpired = expired.message;
    } else {
      await this.#planOperation(run);
    }
    const generation = app.metadata.generation;
    run.outcome = {
      now: run.now,
      observedGeneration: generation,
      observedRevision: observed ?? head,
      syncStatus: 'Unknown',
      blockedBy: run.blockedBy,
      heldAt: heldOrNull(app),
    };
  }

  /** plan: what this run does about operations and automated sync (see `#plan`). */
  async #planOperation(run: ReconcileRun): Promise<void> {
    const { intent, app } = run;
    const { head } = run.source;
    if (intent.kind === 'hold') {
      const revision = intent.reason === 'approval' ? head : intent.revision;
      const staged = revision ? { revision } : {};
      const message = holdMessage(intent.reason, intent.message);
      run.opOutcome = { operation: intent.operation, phase: 'Held', ...staged, message };
    } else if (
      intent.kind === 'observe' &&
      run.blockedBy.length === 0 &&
      needsAutomatedSync(app, run.pinned ?? head, run.hash)
    ) {
      this.#planAutomated(run, head);
    } else if (intent.kind === 'observe' && run.window.open && mayHeal(app)) {
      await this.#planHeal(run);
    }
  }

  /**
   * plan (automated): a change held by a delivery window, else synced, else (requiresApproval) staged for approval
   * once.
   */
  #planAutomated(run: ReconcileRun, head: string): void {
    const { app } = run;
    if (!run.window.open) this.#holdForWindow(run, run.window, run.pinned ?? head);
    else if (app.spec.syncPolicy?.requiresApproval !== true) run.doSync = true;
    else if (!alreadyStaged(app, head)) {
      run.opOutcome = { operation: undefined, phase: 'Held', revision: head, message: APPROVAL_MESSAGE };
    }
  }

  /**
   * plan (windows): an automated change while a delivery window blocks is recorded Held naming the window, once per
   * revision and window (the reconcile at the window's opening syncs it: see `#windows`).
   */
  #holdForWindow(run: ReconcileRun, verdict: Extract<WindowVerdict, { open: false }>, revision: string): void {
    const message = windowHoldMessage(verdict);
    if (alreadyHeldByWindow(run.app, message, revision)) return;
    run.opOutcome = { operation: undefined, phase: 'Held', revision, message };
    this.#announcer.event(run.app, 'Normal', 'SyncHeld', `automated sync of ${revision} ${message}`);
  }

  /**
   * plan (selfHeal): an up-to-date App whose live objects drifted re-applies them, unless the brake stopped it
   * (another writer keeps changing them): then the SelfHealPaused condition says who and until when.
   */
  async #planHeal(run: ReconcileRun): Promise<void> {
    const rules = run.app.spec.ignoreDifferences;
    const drift = await this.#stage('health', () => driftOfAll(run.live, run.objects, rules), 'drift');
    if (drift.length === 0) return;
    if (this.#brake.allows(run.key)) {
      run.heal = drift;
      run.doSync = true;
      return;
    }
    const { selfHealLimit, selfHealWindowMs } = this.#deps.tuning;
    const resume = Math.ceil(this.#brake.retryInMs(run.key) / 1000);
    run.healPaused =
      `paused after ${selfHealLimit} reverts in ${Math.round(selfHealWindowMs / 60_000)} min, resumes in ${resume} s: ` +
      drift.map(describeDrift).join('; ');
    this.#deps.metrics.selfHeal('paused');
  }

  /** apply: a sync applies (and prunes), a restart bumps the workloads; the operation's record says what was done. */
  async #apply(run: ReconcileRun): Promise<void> {
    const { intent, live, key } = run;
    if (run.doSync) {
      run.progress.syncAttempted = true;
      const staged = await this.#sync(run);
      const { revision, origin } = run.source;
      const url = run.driver.publicURL?.(run.app);
      run.outcome.applied = { revision, objectHash: run.hash, ...(origin ? { origin } : {}), ...(url ? { url } : {}) };
      const op = run.operation;
      const message = `applied ${run.objects.length} objects${staged}`;
      run.opOutcome = op ? { operation: op, phase: 'Succeeded', revision, message, resources: run.results } : undefined;
      if (run.heal) await this.#healed(run, run.heal);
    } else if (intent.kind === 'restart') {
      const done = await this.#stage('apply', () => restartWorkloads(live, key, run.inventory.entries, run.now));
      run.opOutcome = {
        operation: intent.operation,
        phase: 'Succeeded',
        message: `restarted ${done.length} workloads`,
      };
    }
  }

  /** A selfHeal revert happened: counted against the brake, an Event naming what drifted, the metric. */
  async #healed(run: ReconcileRun, drift: ObjectDrift[]): Promise<void> {
    this.#brake.record(run.key);
    this.#deps.metrics.selfHeal('reverted');
    this.#announcer.event(run.app, 'Normal', 'SelfHealed', `reverted drift: ${drift.map(describeDrift).join('; ')}`);
  }

  /** health: once the Running mark landed, the health of what is live, and whether the App is in sync. */
  async #assessHealth(run: ReconcileRun): Promise<void> {
    if (run.running) run.app = await run.running;
    const { outcome, app, source, hash } = run;
    const appliedRevision = outcome.applied?.revision ?? app.status?.revision;
    const appliedHash = outcome.applied?.objectHash ?? app.status?.objectHash;
    const upToDate = appliedRevision === source.head && appliedHash === hash;
    run.health = await this.#stage('health', () => this.#assess(run.app, run.live, run.objects, upToDate));
    const allLive = run.health.resources.every((r) => r.healthStatus !== 'Missing');
    const drifted = (run.health.drift ?? []).some((d) => d.kind === 'changed');
    outcome.syncStatus = syncStatusOf({ appliedRevision, appliedHash, head: source.head, hash, allLive, drifted });
    outcome.health = run.health;
    if (run.healPaused !== undefined) outcome.selfHealPaused = run.healPaused;
    if (run.progress.inventory) outcome.inventory = run.progress.inventory;
    if (run.opOutcome) outcome.operationState = this.#opState(run.opOutcome, run.now);
  }

  /**
   * autoRollback (src/core/auto-rollback.ts): an observing reconcile of an App whose applied revision has been
   * Degraded for its onDegradedFor rolls it back to the last healthy revision and holds it: one patch, guarded by the
   * resourceVersion read, writes the Rollback operation, its hold and the record of it (a concurrent change fails
   * it as a conflict: the reconcile runs again and decides afresh). Until then, the App is looked at again when the
   * delay runs out. The Event and the notification follow the status write (#record).
   */
  async #autoRollback(run: ReconcileRun): Promise<void> {
    const { app, outcome } = run;
    if (autoRollbackDelayMs(app) === undefined || run.intent.kind !== 'observe') return;
    const next = nextStatus(app.status, outcome, this.#deps.tuning.maxHistory);
    const decision = decideAutoRollback(app, {
      health: next.healthStatus,
      revision: next.revision,
      degradedSince: next.degradedSince,
      healthyRevision: next.healthyRevision,
      now: Date.parse(run.now),
    });
    if (decision.kind === 'wait') run.requeueInMs = decision.inMs;
    if (decision.kind !== 'rollback') return;
    this.#fence(run.key);
    const tag = app.spec.source.type === 'Image' ? revisionTagOf(app, decision.to) : undefined;
    const request = {
      kind: 'Rollback' as const,
      revision: decision.to,
      triggeredBy: AUTO_ROLLBACK_ACTOR,
      ...(tag !== undefined ? { specPatch: { source: { image: { tag } } } } : {}),
    };
    const { id, patch } = operationPatch(app, request, newStamp());
    const record: AutoRollbackRecord = {
      from: decision.from,
      to: decision.to,
      at: decision.hold.at,
      operationId: id,
      after: decision.after,
    };
    const annotations = {
      [HOLD_ANNOTATION]: holdAnnotation(decision.hold),
      [AUTO_ROLLBACK_ANNOTATION]: JSON.stringify(record),
    };
    const metadata = { resourceVersion: app.metadata.resourceVersion, annotations };
    run.app = this.#wrote(
      (await this.#deps.mgmt.mergePatch(this.#ref(app), { ...patch, metadata })) as unknown as AppResource,
    );
    outcome.heldAt = decision.hold;
    run.autoRollback = record;
  }

  /** status: written once (not at all when unchanged); then events, notifications and metrics. */
  async #record(run: ReconcileRun): Promise<void> {
    const { app, outcome, opOutcome } = run;
    const pausedBefore = app.status?.conditions?.some((c) => c.type === 'SelfHealPaused' && c.status === 'True');
    await this.#timed('status', () => this.#write(app, outcome));
    if (run.approvalExpired) this.#announcer.event(app, 'Warning', 'ApprovalExpired', run.approvalExpired);
    const paused = outcome.selfHealPaused !== undefined && !pausedBefore;
    if (paused) this.#announcer.event(app, 'Warning', 'SelfHealPaused', outcome.selfHealPaused ?? '');
    // A selfHeal revert is told by its SelfHealed event, not by a sync notification on every revert; a pause is
    // told once, as a sync failure (the App can no longer be kept in sync).
    const success = run.doSync && !run.heal ? 'success' : undefined;
    const notify = paused ? 'failure' : success;
    this.#announcer.announce(app, outcome, opOutcome, notify);
    if (run.autoRollback) this.#announcer.autoRollback(app, run.autoRollback, run.now);
    this.#deps.metrics.observeApp(run.key, outcome.syncStatus, run.health.status);
  }

  /**
   * What a failed reconcile records about its operation: a freeze hold still holds (it does not need the source);
   * an operation that was to run, or to be staged for approval, failed; an observing reconcile has none.
   */
  #failedOperation(intent: Intent, message: string, progress: Progress): OpOutcome | undefined {
    if (intent.kind === 'observe') return undefined;
    if (intent.kind === 'hold' && intent.reason !== 'approval') {
      const revision = intent.revision ? { revision: intent.revision } : {};
      const message = holdMessage(intent.reason, intent.message);
      return { operation: intent.operation, phase: 'Held', ...revision, message };
    }
    const revision = intent.kind === 'sync' && progress.objects ? { revision: progress.revision ?? '' } : {};
    return { operation: intent.operation, phase: 'Failed', ...revision, message };
  }

  /**
   * Apply, then (with syncPolicy.prune) prune what left the inventory. A plan with hooks or several waves runs staged
   * (./stages/waves.ts): PreSync hooks, the waves in order (each healthy before the next), prune, PostSync hooks, and
   * the SyncFail hooks when any of it failed; a selfHeal revert only re-applies. Sets `progress.inventory`: what the
   * App owns afterwards. Answers what the operation's message adds (the waves and hooks run). Throws StageError.
   */
  async #sync(run: ReconcileRun): Promise<string> {
    const { plan } = run;
    this.#fence(run.key);
    const waves = this.#waveApplier(run);
    const ctx = this.#waveContext(run, waves.apply);
    if (run.heal || !isStaged(plan)) {
      await waves.apply(plan.objects);
      await this.#pruneIfSet(run, ctx);
      return '';
    }
    try {
      // PreSync hooks run in the destination namespace before anything of the App is applied.
      await waves.ensureNamespace();
      await this.#stage('hook', () => runPhase(ctx, plan.phases.PreSync));
      const lines = await runSyncWaves(ctx, plan);
      await this.#pruneIfSet(run, ctx);
      await this.#stage('hook', () => runPhase(ctx, plan.phases.PostSync));
      const hooks = HOOK_PHASES.flatMap((p) => plan.phases[p].flatMap((w) => w.hooks)).filter(
        (h) => h.phase !== 'SyncFail',
      );
      return `; ${lines.join('; ')}${hooks.length > 0 ? `; hooks succeeded: ${hooks.map(describeHook).join(', ')}` : ''}`;
    } catch (err) {
      // A superseded sync did not fail: the newer revision's sync replaces it, without the SyncFail hooks.
      if (err instanceof StageError && !(err.cause instanceof SupersededError)) await runFailHooks(ctx, plan);
      throw err;
    }
  }

  /** The context of a staged sync: its live state, fence, wave apply, health, events and deadline. */
  #waveContext(run: ReconcileRun, apply: (objects: AnyObject[]) => Promise<void>): WaveContext {
    const timeout = operationTimeoutOf(run.app, this.#deps.tuning.operationTimeoutMs);
    return {
      live: run.live,
      fence: () => this.#waitFence(run.key),
      apply,
      health: (objects) => this.#assess(run.app, run.live, objects, true),
      event: (type, reason, message) => this.#announcer.event(run.app, type, reason, message),
      deadline: Date.parse(run.now) + timeout.ms,
      timeout: timeout.label,
      progress: (phase, wave) => this.#progress(run, phase, wave),
      terminated: () => this.#terminated(run),
      superseded: () => this.#superseded(run),
      record: (entry) => run.results.push(entry),
    };
  }

  /**
   * What supersedes a staged sync waiting on health (see WaveContext.superseded): only for an automated App whose
   * sync follows the head (an automated sync, or a requested Sync; never a Rollback or Approve of a chosen revision):
   * a newer sync request on the App (a push event, the sync button), or an upstream head past the revision being
   * synced (read as fresh as an automated App's poll reads it). An upstream that cannot be read supersedes nothing.
   */
  async #superseded(run: ReconcileRun): Promise<string | undefined> {
    // A rollback that stands or holds renders its own revision, not the head: nothing newer supersedes it.
    if (run.pinned !== undefined || !followsHead(run.app, run.intent)) return undefined;
    const now =
      this.#written.newest(`${run.key.namespace}/${run.key.name}`, this.#deps.cachedApp?.(run.key)) ?? run.app;
    const request = newerSyncRequest(now, run.operation);
    if (request) return request;
    const head = await run.driver
      .resolve(now, { target: 'head', operation: undefined })
      .then((r) => r.head)
      .catch(() => undefined);
    return head && head !== run.source.revision ? `revision ${head.slice(0, 12)}` : undefined;
  }

  /**
   * True when someone asked to terminate the run's operation (the App as the informer holds it now carries the
   * request). The run then records its failure onto that newer App (the request's write changed its version).
   */
  #terminated(run: ReconcileRun): boolean {
    const op = run.operation;
    const now = this.#written.newest(`${run.key.namespace}/${run.key.name}`, this.#deps.cachedApp?.(run.key));
    if (!op || !now || !terminationRequested(now, op)) return false;
    run.app = now;
    run.running = undefined;
    return true;
  }

  /**
   * Shows the phase and wave a running operation is in (operationState.syncPhase and wave, cleared when it ends), once
   * its Running mark landed. Best effort: a write that loses to a concurrent change of the App is skipped (the
   * outcome's write settles that change).
   */
  async #progress(run: ReconcileRun, syncPhase: HookPhase, wave: number): Promise<void> {
    if (!run.operation) return;
    if (run.running) {
      run.app = await run.running;
      run.running = undefined;
    }
    const state = run.app.status?.operationState;
    if (state?.phase !== 'Running') return;
    const operationState = { ...state, syncPhase, wave, message: `${syncPhase} wave ${wave}` };
    this.#fence(run.key);
    try {
      run.app = this.#wrote(await writeStatus(this.#deps.mgmt, run.app, { ...run.app.status, operationState }));
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }

  /**
   * Applies one wave of the App's objects into its namespace (created first when not known to exist; when an apply
   * into a namespace taken as existing fails, it is checked and created, and the wave applied once more), and adds
   * what it applied to `progress.inventory`. Throws StageError('apply').
   */
  #waveApplier(run: ReconcileRun): {
    ensureNamespace: () => Promise<void>;
    apply: (objects: AnyObject[]) => Promise<void>;
  } {
    const { app, live, progress, key } = run;
    const namespace = app.spec.destination.namespace;
    const ensure = async () => {
      const created = await this.#stage(
        'apply',
        () => ensureNamespace(live.client, namespace, createdForLabels(key)),
        'namespace',
      );
      live.knownNamespaces.add(namespace);
      return created;
    };
    let checked = false;
    const ensureKnown = async () => {
      if (checked || live.knownNamespaces.has(namespace)) return;
      checked = true;
      await ensure();
    };
    const apply = async (objects: AnyObject[]) => {
      await ensureKnown();
      const applied = await this.#stage('apply', () => respectAll(live, objects, app.spec.ignoreDifferences), 'ignore');
      const apply = () => this.#stage('apply', () => applyObjects(live.client, applied, () => this.#fence(key)));
      let result = await apply();
      // The namespace was taken as existing and something failed: it may have been deleted since; if so, create it
      // and apply once more.
      if (!checked && result.errors.length > 0) {
        checked = true;
        live.knownNamespaces.delete(namespace);
        if (await ensure()) result = await apply();
      }
      const { errors, hint } = result;
      live.remember(result.applied);
      run.results.push(...appliedResources(result.applied));
      // Until prune ran, the App owns what it owned before plus whatever this apply created.
      progress.inventory = mergeInventory(progress.inventory ?? run.inventory.entries, result.applied.map(entryOf));
      if (errors.length > 0) throw new StageError('apply', new Error(errors.join('; ')), hint);
    };
    return { ensureNamespace: ensureKnown, apply };
  }

  /**
   * Prune, when the App's syncPolicy.prune is set and it is not a pending import; each wave's deletions are waited for until gone before the next
   * wave is deleted, within the operation's deadline (`ctx`).
   */
  async #pruneIfSet(run: ReconcileRun, ctx: WaveContext): Promise<void> {
    if (run.app.spec.syncPolicy?.prune !== true) return;
    // An import not confirmed yet never deletes what the old controller left (docs/migrate.md).
    if (importPending(run.app.metadata.annotations)) return;
    const wait = (waiting: string) => tick(ctx, waiting);
    await this.#prune(run, wait);
  }

  /**
   * Prune: deletes the objects of `previous` (the inventory) that left the rendered set; what failed to delete stays
   * in `progress.inventory`, to be retried. The one place prune runs.
   */
  async #prune(run: ReconcileRun, wait: Tick): Promise<void> {
    const { app, live, objects, progress } = run;
    const previous = run.inventory.entries;
    this.#fence(this.#key(app));
    const pruned = await this.#stage('prune', () => prune(live, this.#key(app), previous, objects, wait));
    progress.inventory = mergeInventory(pruned.kept, objects.map(entryOf));
    for (const { ref, wave } of pruned.deleted) {
      run.results.push(operationResource(ref, 'Pruned', { syncPhase: 'Sync', wave }));
    }
    if (pruned.deleted.length > 0) {
      const names = pruned.deleted.map((d) => describeRef(d.ref));
      this.#announcer.event(app, 'Normal', 'Pruned', `deleted ${names.join(', ')}`);
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
    return assessHealth(live, objects, inSync, custom, app.spec.ignoreDifferences);
  }

  /** Records a failed reconcile: SyncError (and Stalled), the operation's record, health of what is known. */
  async #fail(run: ReconcileRun, err: StageError): Promise<ReconcileResult> {
    const { app, progress } = run;
    // A remote destination that does not answer: its own reason, and its health is not known (not "as last seen").
    const unreachable = (app.spec.destination.cluster ?? '') !== '' && isUnreachable(err);
    const failure = failureOf(err, unreachable);
    const op = this.#failedOperation(run.intent, err.message, progress);
    // The operation keeps why it failed after the SyncError condition moved on (a later reconcile clears it).
    if (op?.phase === 'Failed') {
      op.reason = failure.reason ?? REASON_BY_STAGE[failure.stage];
      op.resources = run.results;
    }
    const health = unreachable ? this.#unreachableHealth(app) : await this.#knownHealth(run);
    const now = new Date().toISOString();
    const syncStatus: SyncStatus = app.status?.revision ? 'OutOfSync' : 'Unknown';
    const outcome: Outcome = {
      now,
      observedGeneration: app.metadata.generation,
      syncStatus,
      error: failure,
      blockedBy: run.blockedBy,
      ...(progress.observed ? { observedRevision: progress.observed } : {}),
      ...(health ? { health } : {}),
      ...inventoryAfterFailure(run),
      ...(op ? { operationState: this.#opState(op, now) } : {}),
    };
    const previouslyFailing = app.status?.conditions?.some((c) => c.type === 'SyncError' && c.status === 'True');
    if (!(await this.#writeFailure(app, outcome))) return { requeue: 500, result: 'error' };
    const { stage, hint, message } = failure;
    this.#deps.logger.warn({ app: run.key, stage, hint, err: message }, 'sync error');
    await this.#announceFailure(run, outcome, op, !previouslyFailing);
    this.#deps.metrics.observeApp(run.key, syncStatus, health?.status ?? app.status?.healthStatus ?? 'Unknown');
    return { requeue: this.#requeueFor(hint), result: hint === 'stall' ? 'stalled' : 'error' };
  }

  /** A failed reconcile's status write; false when it lost to a concurrent change (re-run soon). */
  async #writeFailure(app: AppResource, outcome: Outcome): Promise<boolean> {
    try {
      await this.#write(app, outcome);
    } catch (writeErr) {
      if (writeErr instanceof FencedError) throw writeErr;
      if (isConflict(writeErr)) return false;
      // The App was deleted meanwhile: nothing to record; the reconcile's own catch ends it quietly.
      if (isNotFound(writeErr)) throw writeErr;
      this.#deps.logger.error({ err: describeError(writeErr) }, 'status write failed');
    }
    return true;
  }

  /** The health of an App whose remote destination does not answer: Unknown, and the resources as last seen. */
  #unreachableHealth(app: AppResource): HealthResult {
    this.#deps.onUnreachable?.(app);
    const cluster = app.spec.destination.cluster ?? '';
    return {
      status: 'Unknown',
      reason: `cluster "${cluster}" cannot be reached`,
      resources: app.status?.resources ?? [],
    };
  }

  /** The health of what a failed run knows of (rendered, else as last recorded); none without a destination. */
  async #knownHealth(run: ReconcileRun): Promise<HealthResult | undefined> {
    const { app, target } = run;
    if (!target) return undefined;
    const known =
      run.progress.objects ??
      ((app.status?.resources ?? []).map((r) => ({
        apiVersion: r.apiVersion,
        kind: r.kind,
        metadata: { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) },
      })) as AnyObject[]);
    return this.#assess(app, this.#live(app, target), known, false).catch(() => undefined);
  }

  /**
   * Notifies a failure: once per failed operation, and for automated syncs once per transition into failure (not on
   * every retry), with a SyncFailed event then.
   */
  async #announceFailure(
    run: ReconcileRun,
    outcome: Outcome,
    op: OpOutcome | undefined,
    newly: boolean,
  ): Promise<void> {
    const { app, progress } = run;
    if (outcome.error?.reason === 'Superseded') {
      // Not a failure to notify about: the newer revision's sync follows at once.
      this.#announcer.announce(app, outcome, op, undefined, progress.revision);
      this.#announcer.event(app, 'Normal', 'SyncSuperseded', outcome.error.message);
      return;
    }
    const opFailed = op?.phase === 'Failed';
    const notify = opFailed || (progress.syncAttempted && newly) ? 'failure' : undefined;
    this.#announcer.announce(app, outcome, op, notify, progress.revision);
    if (!opFailed && progress.syncAttempted && newly) {
      this.#announcer.event(app, 'Warning', 'SyncFailed', outcome.error?.message ?? '');
    }
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
      ...(o.reason ? { reason: o.reason } : {}),
      ...(o.phase === 'Held' ? {} : { finishedAt: now }),
      ...listedResources(o.resources ?? []),
    };
  }

  async #writeRunning(app: AppResource, op: Operation): Promise<AppResource> {
    this.#fence(this.#key(app));
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
    // A resync that changed nothing sends nothing (not even a PATCH the apiserver would find to be a no-op: one request
    // per App per period). Compared as values: the apiserver answers with keys sorted, unlike the status built here.
    if (isDeepStrictEqual(JSON.parse(JSON.stringify(next)), app.status ?? {})) return;
    this.#fence(this.#key(app));
    this.#wrote(await writeStatus(this.#deps.mgmt, app, next));
  }

  /**
   * Deletion: cascade (default) deletes every object of the App's inventory still carrying its labels, then
   * releases the finalizer; `cd.svc.space/delete-policy: orphan` releases it at once. If the destination stays
   * unreachable past `deleteTimeoutMs`, the App is released anyway (with a Warning event) so deletion never wedges
   * forever.
   */
  async #finalize(cached: AppResource): Promise<ReconcileResult> {
    const app = await this.#stillFinalizing(cached);
    if (!app) return { requeue: undefined, result: 'gone' };
    const finalizers = app.metadata.finalizers ?? [];
    if (!orphans(app)) {
      this.#fence(this.#key(app));
      try {
        const target = await this.#deps.targetFor(app);
        const live = this.#live(app, target);
        const deleted = await deleteApplied(live, app, await this.#postDelete(app, live, target));
        if (deleted > 0) this.#announcer.event(app, 'Normal', 'Deleted', `deleted ${deleted} objects`);
      } catch (err) {
        if (err instanceof FencedError) throw err;
        const since = Date.parse(app.metadata.deletionTimestamp ?? '') || Date.now();
        if (Date.now() - since < this.#deps.tuning.deleteTimeoutMs) {
          await this.#deletionFailed(app, err);
          this.#announcer.event(
            app,
            'Warning',
            'DeleteFailed',
            `cannot delete applied objects, retrying: ${describeError(err)}`,
          );
          return { requeue: this.#deps.tuning.errorRequeueMs, result: 'error' };
        }
        this.#announcer.event(
          app,
          'Warning',
          'DeleteAbandoned',
          `gave up deleting applied objects: ${describeError(err)}`,
        );
      }
    }
    this.#fence(this.#key(app));
    const released = finalizers.filter((f) => f !== FINALIZER);
    await this.#deps.mgmt.mergePatch(this.#ref(app), {
      metadata: { resourceVersion: app.metadata.resourceVersion, finalizers: released },
    });
    this.forget(this.#key(app));
    return { requeue: undefined, result: 'gone' };
  }

  /**
   * The deleting App, still holding svc's finalizer, else undefined. A cascade deletion reads it afresh: the
   * informer's copy can outlive the App by a moment (a reconcile queued by its objects' changes while the previous one
   * released it), and running the PostDelete hooks again for an App that is gone is not harmless.
   */
  async #stillFinalizing(cached: AppResource): Promise<AppResource | undefined> {
    const app = orphans(cached) ? cached : ((await this.#deps.mgmt.get(this.#ref(cached))) as AppResource | undefined);
    return app?.metadata.finalizers?.includes(FINALIZER) ? app : undefined;
  }

  /**
   * What a deletion runs once the App's objects are gone: the PostDelete hooks of its source at its last applied
   * revision (none when it never synced), in a context bounded by the App's operation timeout from now. A render
   * that fails fails the deletion (retried like a failed delete): the hooks cannot be known without it.
   */
  async #postDelete(app: AppResource, live: DestinationCache, target: ObjectClient): Promise<PostDelete> {
    const timeout = operationTimeoutOf(app, this.#deps.tuning.operationTimeoutMs);
    const ctx: WaveContext = {
      live,
      fence: () => this.#waitFence(this.#key(app)),
      apply: () => Promise.reject(new Error('a deletion applies nothing')),
      health: (objects) => this.#assess(app, live, objects, true),
      event: (type, reason, message) => this.#announcer.event(app, type, reason, message),
      deadline: Date.now() + timeout.ms,
      timeout: timeout.label,
      terminated: () => false,
      superseded: () => Promise.resolve(undefined),
      record: () => undefined,
      progress: () => Promise.resolve(),
    };
    const revision = app.status?.revision;
    if (!revision) return { ctx, hooks: [] };
    const rendered = await inStage('render', async () =>
      (await driverFor(this.#deps.sources, app)).render(app, revision, target),
    );
    return { ctx, hooks: planSync(prepareObjects(rendered, this.#key(app))).postDelete };
  }

  /**
   * A deletion that failed and is retried: the App's SyncError condition says why (a PostDelete hook that failed, a
   * delete that failed) until it is released. Best effort: the Event says it too.
   */
  async #deletionFailed(app: AppResource, err: unknown): Promise<void> {
    const conditions = (app.status?.conditions ?? []).filter((c) => c.type !== 'SyncError');
    const condition = {
      type: 'SyncError' as const,
      status: 'True' as const,
      reason: deletionReason(err),
      message: `deletion held: ${describeError(err)}`,
      lastTransitionTime: new Date().toISOString(),
    };
    this.#fence(this.#key(app));
    await writeStatus(this.#deps.mgmt, app, { ...app.status, conditions: [...conditions, condition] }).catch(
      (e: unknown) => this.#deps.logger.warn({ err: describeError(e) }, 'deletion status write failed'),
    );
  }
}

/**
 * Why a deletion is held, for the App's SyncError condition: a PostDelete hook that failed or ran past the deadline,
 * or a delete that failed.
 */
function deletionReason(err: unknown): string {
  if (err instanceof StageError && err.cause instanceof DeadlineExceededError) return 'DeadlineExceeded';
  return err instanceof StageError && err.stage === 'hook' ? 'PostDeleteHookFailed' : 'DeleteFailed';
}

/**
 * The inventory a failed reconcile writes: what it changed (migrated, or partly applied), else, once the inventory
 * stage ran, the inventory as it stands. A new App whose first sync failed before applying anything (a failed PreSync
 * hook) thus records an empty inventory instead of none, so no later reconcile takes it for an App from before the
 * inventory and adopts the objects carrying its labels (its hooks) by a migration LIST.
 */
function inventoryAfterFailure(run: ReconcileRun): { inventory?: InventoryEntry[] } {
  const inventory = run.progress.inventory ?? (run.inventory as LoadedInventory | undefined)?.entries;
  return inventory ? { inventory } : {};
}

/** The App's held rollback for status.heldAt: null removes one that was released. */
function heldOrNull(app: AppResource): HeldAt | null {
  return heldAtOf(app) ?? null;
}
