/**
 * The reconciler: an ordered list of stages run for one App key.
 *
 *   load → finalize (deleting) | ensure finalizer → decide → resolve (head, target revision) → render →
 *   apply → prune → health → status (written once, at the end) → events and notifications → requeue
 *
 * Level-based: every decision comes from the App's spec and status plus what is live, never from the event that
 * woke it. Errors become the SyncError condition and a requeue after `errorRequeueMs`; nothing is pruned after a
 * failed render or apply. What is live comes from the destination's watch cache (src/operator/live), which also
 * re-queues an App when one of its objects changes health; what the App owns is its inventory (status.inventory).
 */
import type { Logger } from 'pino';
import {
  APP_API_VERSION,
  APP_KIND,
  type AppResource,
  type GitSource,
  type Operation,
  type OperationState,
  type SyncStatus,
} from '../core/app-schema.ts';
import { describeError, InputError } from '../core/errors.ts';
import type { RepoCache } from '../git/index.ts';
import { type AnyObject, isConflict, type ObjectClient } from '../kube/index.ts';
import type { RenderCache, ToolPaths } from '../render/index.ts';
import { Announcer, type OpOutcome } from './announce.ts';
import { type AppKey, FINALIZER } from './labels.ts';
import { type DestinationCache, destinationOf, type LiveCache } from './live/index.ts';
import type { OperatorMetrics } from './metrics.ts';
import { applyObjects, ensureNamespace, hashObjects, prepareObjects } from './stages/apply.ts';
import { APPROVAL_MESSAGE, alreadyStaged, decide, needsAutomatedSync } from './stages/decide.ts';
import { deleteApplied, orphans } from './stages/finalize.ts';
import { assessHealth, type HealthResult } from './stages/health.ts';
import {
  entryOf,
  type InventoryEntry,
  type LoadedInventory,
  loadInventory,
  mergeInventory,
} from './stages/inventory.ts';
import { prune } from './stages/prune.ts';
import { restartWorkloads } from './stages/restart.ts';
import { freshness, gitSourceOf, renderAt, resolveHead } from './stages/source.ts';
import { nextStatus, type Outcome, writeStatus } from './stages/status.ts';

/** Timing and bounds of the reconciler (production defaults in DEFAULT_TUNING). */
export interface ReconcilerTuning {
  syncPeriodMs: number;
  errorRequeueMs: number;
  /** Bound of status.previousRevisions. */
  maxHistory: number;
  /** After this long, a cascade deletion that keeps failing gives up and releases the App. */
  deleteTimeoutMs: number;
}

/**
 * Production defaults: resync 60 s, 30 s after errors, 50 revisions, 10 min delete timeout. No timed requeue while
 * settling: the live cache re-queues an App when one of its objects changes health.
 */
export const DEFAULT_TUNING: ReconcilerTuning = {
  syncPeriodMs: 60_000,
  errorRequeueMs: 30_000,
  maxHistory: 50,
  deleteTimeoutMs: 10 * 60_000,
};

/** Everything the reconciler needs, passed in once (no globals, no environment). */
export interface ReconcilerDeps {
  mgmt: ObjectClient;
  repos: RepoCache;
  /** Render cache shared by every App (optional: without it every reconcile renders). */
  renders?: RenderCache;
  /** The cluster an App deploys to. The management cluster for an empty destination.cluster. */
  targetFor: (app: AppResource) => Promise<ObjectClient>;
  /** The live state of every destination (watch caches of the managed objects). */
  live: LiveCache;
  tools?: ToolPaths;
  workDir?: string;
  publicURL: string;
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

/** Thrown at a write barrier when `mayWrite` says no; the reconcile ends without touching anything more. */
export class FencedError extends Error {
  constructor() {
    super('this operator may no longer write (not leader or stopping)');
    this.name = 'FencedError';
  }
}

/** The outcome of one reconcile, for the work queue and the metrics. */
export interface ReconcileResult {
  /** Run again after this many ms; undefined = never (the App is gone). */
  requeueAfterMs: number | undefined;
  result: 'success' | 'error' | 'gone';
}

/** Reconciles one App at a time (the work queue guarantees one key is never reconciled twice at once). */
export class Reconciler {
  readonly #d: ReconcilerDeps;
  readonly #announcer: Announcer;

  constructor(deps: ReconcilerDeps) {
    this.#d = deps;
    this.#announcer = new Announcer(deps);
  }

  /** Runs every stage for `key`. Never throws: failures are recorded on the App and answered with a requeue. */
  async reconcile(key: AppKey): Promise<ReconcileResult> {
    try {
      const app = await this.#load(key);
      if (!app) return { requeueAfterMs: undefined, result: 'gone' };
      if (app.metadata.deletionTimestamp) return await this.#finalize(app);
      return await this.#run(await this.#ensureFinalizer(app));
    } catch (err) {
      if (err instanceof FencedError) return { requeueAfterMs: undefined, result: 'error' };
      if (isConflict(err)) return { requeueAfterMs: 500, result: 'error' };
      this.#d.logger.error({ app: key, err: describeError(err) }, 'reconcile failed');
      return { requeueAfterMs: this.#d.tuning.errorRequeueMs, result: 'error' };
    }
  }

  /** Write barrier: throws FencedError when this process may no longer write. */
  #fence(): void {
    if (this.#d.mayWrite && !this.#d.mayWrite()) throw new FencedError();
  }

  async #load(key: AppKey): Promise<AppResource | undefined> {
    const obj = await this.#d.mgmt.get({ apiVersion: APP_API_VERSION, kind: APP_KIND, ...key });
    return obj as unknown as AppResource | undefined;
  }

  #ref(app: AppResource) {
    return { apiVersion: APP_API_VERSION, kind: APP_KIND, name: app.metadata.name, namespace: app.metadata.namespace };
  }

  #key(app: AppResource): AppKey {
    return { namespace: app.metadata.namespace ?? '', name: app.metadata.name };
  }

  #live(app: AppResource, target: ObjectClient): DestinationCache {
    return this.#d.live.of(destinationOf(app), target);
  }

  async #ensureFinalizer(app: AppResource): Promise<AppResource> {
    const finalizers = app.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER)) return app;
    this.#fence();
    const patch = {
      metadata: { resourceVersion: app.metadata.resourceVersion, finalizers: [...finalizers, FINALIZER] },
    };
    return (await this.#d.mgmt.mergePatch(this.#ref(app), patch)) as unknown as AppResource;
  }

  /** The main path for a live App. */
  async #run(app: AppResource): Promise<ReconcileResult> {
    const { tuning } = this.#d;
    const now = new Date().toISOString();
    const key = this.#key(app);
    const intent = decide(app);
    const op = intent.kind === 'observe' ? undefined : intent.operation;
    let git: GitSource;
    let target: ObjectClient;
    try {
      git = gitSourceOf(app);
      target = await this.#d.targetFor(app);
    } catch (err) {
      return this.#fail(
        app,
        undefined,
        err,
        op ? { operation: op, phase: 'Failed', message: describeError(err) } : undefined,
      );
    }

    if (intent.kind === 'reject') {
      return this.#fail(app, target, new InputError(intent.message), {
        operation: intent.operation,
        phase: 'Failed',
        message: intent.message,
      });
    }
    // Mark a picked-up operation Running first: if this process dies, the next leader sees it still pending.
    if ((intent.kind === 'sync' || intent.kind === 'restart') && app.status?.operationState?.phase !== 'Running') {
      app = await this.#markRunning(app, intent.operation);
    }

    let head: string;
    let revision: string;
    let objects: AnyObject[];
    let inventory: LoadedInventory;
    try {
      head = await resolveHead(this.#d.repos, git, freshness(op, Math.min(tuning.syncPeriodMs / 2, 15_000)));
      revision =
        intent.kind === 'sync' && intent.revision !== 'head'
          ? await this.#d.repos.resolveRevision(git.repoURL, intent.revision)
          : head;
      const rendered = await renderAt(
        {
          repos: this.#d.repos,
          discovery: target.discovery,
          tools: this.#d.tools,
          workDir: this.#d.workDir,
          ...(this.#d.renders ? { renders: this.#d.renders } : {}),
        },
        app,
        git,
        revision,
      );
      objects = prepareObjects(rendered, key);
      inventory = await loadInventory(target, app);
    } catch (err) {
      const runs = intent.kind === 'sync' || intent.kind === 'restart';
      return this.#fail(
        app,
        target,
        err,
        runs ? { operation: op, phase: 'Failed', message: describeError(err) } : undefined,
        {
          syncAttempted: runs || app.spec.syncPolicy?.automated === true,
        },
      );
    }
    const hash = hashObjects(objects);

    let opOutcome: OpOutcome | undefined;
    let doSync = intent.kind === 'sync';
    if (intent.kind === 'hold') {
      // Only an approval hold stages a revision (what Approve will apply); a freeze hold re-resolves on unfreeze.
      const staged = intent.message === APPROVAL_MESSAGE ? { revision: head } : {};
      opOutcome = { operation: op, phase: 'Held', ...staged, message: intent.message };
    } else if (intent.kind === 'observe' && needsAutomatedSync(app, head, hash)) {
      if (app.spec.syncPolicy?.requiresApproval === true) {
        if (!alreadyStaged(app, head))
          opOutcome = { operation: undefined, phase: 'Held', revision: head, message: APPROVAL_MESSAGE };
      } else {
        doSync = true;
      }
    }

    const live = this.#live(app, target);
    const outcome: Outcome = {
      now,
      observedGeneration: app.metadata.generation,
      observedRevision: head,
      syncStatus: 'Unknown',
      // An inventory just built from a pre-inventory status is written even when nothing is synced.
      ...(inventory.migrated ? { inventory: inventory.entries } : {}),
    };
    if (doSync) {
      const errors = await this.#sync(app, live, objects, inventory.entries, outcome);
      if (errors.length > 0) {
        const message = errors.join('; ');
        return this.#fail(
          app,
          target,
          new Error(message),
          op ? { operation: op, phase: 'Failed', revision, message } : undefined,
          {
            syncAttempted: true,
            revision,
            observedRevision: head,
            objects,
            ...(outcome.inventory ? { inventory: outcome.inventory } : {}),
          },
        );
      }
      outcome.applied = { revision, objectHash: hash };
      opOutcome = op
        ? { operation: op, phase: 'Succeeded', revision, message: `applied ${objects.length} objects` }
        : undefined;
    } else if (intent.kind === 'restart') {
      const done = await restartWorkloads(live, key, inventory.entries, now);
      opOutcome = { operation: intent.operation, phase: 'Succeeded', message: `restarted ${done.length} workloads` };
    }

    const appliedRevision = outcome.applied?.revision ?? app.status?.revision;
    const appliedHash = outcome.applied?.objectHash ?? app.status?.objectHash;
    const upToDate = appliedRevision === head && appliedHash === hash;
    const health = await assessHealth(live, objects, upToDate);
    const allLive = health.resources.every((r) => r.healthStatus !== 'Missing');
    outcome.syncStatus = upToDate && allLive ? 'Synced' : 'OutOfSync';
    outcome.health = health;
    if (opOutcome) outcome.operationState = this.#opState(opOutcome, now);
    await this.#write(app, outcome);
    await this.#announcer.announce(app, outcome, opOutcome, doSync ? 'success' : undefined);
    this.#d.metrics.observeApp(key, outcome.syncStatus, health.status);
    return { requeueAfterMs: tuning.syncPeriodMs, result: 'success' };
  }

  /**
   * Apply and (with syncPolicy.prune) prune the objects of `previous` (the inventory) that left the rendered set.
   * Sets `outcome.inventory`: what the App owns afterwards. Returns error lines; empty when everything succeeded.
   */
  async #sync(
    app: AppResource,
    live: DestinationCache,
    objects: AnyObject[],
    previous: InventoryEntry[],
    outcome: Outcome,
  ): Promise<string[]> {
    const key = this.#key(app);
    this.#fence();
    await ensureNamespace(live.client, app.spec.destination.namespace, key);
    const { applied, errors } = await applyObjects(live.client, objects, () => this.#fence());
    live.remember(applied);
    // Until prune ran, the App owns what it owned before plus whatever this apply created.
    outcome.inventory = mergeInventory(previous, applied.map(entryOf));
    if (errors.length > 0) return errors;
    if (app.spec.syncPolicy?.prune === true) {
      this.#fence();
      const pruned = await prune(live, key, previous, objects);
      outcome.inventory = mergeInventory(pruned.kept, objects.map(entryOf));
      if (pruned.deleted.length > 0) {
        await this.#announcer.event(app, 'Normal', 'Pruned', `deleted ${pruned.deleted.join(', ')}`);
      }
      return pruned.errors.map((e) => `prune: ${e}`);
    }
    return [];
  }

  /** Records a failed reconcile: SyncError, operation Failed, health from the last known resources. */
  async #fail(
    app: AppResource,
    target: ObjectClient | undefined,
    err: unknown,
    op: OpOutcome | undefined,
    extra: {
      syncAttempted?: boolean;
      revision?: string;
      observedRevision?: string;
      objects?: AnyObject[];
      inventory?: InventoryEntry[];
    } = {},
  ): Promise<ReconcileResult> {
    const now = new Date().toISOString();
    const message = describeError(err);
    let health: HealthResult | undefined;
    if (target) {
      const known =
        extra.objects ??
        ((app.status?.resources ?? []).map((r) => ({
          apiVersion: r.apiVersion,
          kind: r.kind,
          metadata: { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) },
        })) as AnyObject[]);
      health = await assessHealth(this.#live(app, target), known, false).catch(() => undefined);
    }
    const syncStatus: SyncStatus = app.status?.revision ? 'OutOfSync' : 'Unknown';
    const outcome: Outcome = {
      now,
      observedGeneration: app.metadata.generation,
      syncStatus,
      error: message,
      ...(extra.observedRevision ? { observedRevision: extra.observedRevision } : {}),
      ...(health ? { health } : {}),
      ...(extra.inventory ? { inventory: extra.inventory } : {}),
      ...(op ? { operationState: this.#opState(op, now) } : {}),
    };
    const previouslyFailing = app.status?.conditions?.some((c) => c.type === 'SyncError' && c.status === 'True');
    try {
      await this.#write(app, outcome);
    } catch (writeErr) {
      if (writeErr instanceof FencedError) throw writeErr;
      if (isConflict(writeErr)) return { requeueAfterMs: 500, result: 'error' };
      this.#d.logger.error({ err: describeError(writeErr) }, 'status write failed');
    }
    this.#d.logger.warn({ app: this.#key(app), err: message }, 'sync error');
    // Notify per failed operation, and per transition into failure for automated syncs (not every 30 s retry).
    const notifyFailure = op !== undefined || (extra.syncAttempted === true && !previouslyFailing);
    await this.#announcer.announce(app, outcome, op, notifyFailure ? 'failure' : undefined, extra.revision);
    if (!op && extra.syncAttempted && !previouslyFailing)
      await this.#announcer.event(app, 'Warning', 'SyncFailed', message);
    this.#d.metrics.observeApp(this.#key(app), syncStatus, health?.status ?? app.status?.healthStatus ?? 'Unknown');
    return { requeueAfterMs: this.#d.tuning.errorRequeueMs, result: 'error' };
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
        message: `picked up by ${this.#d.identity}`,
      },
    };
    return writeStatus(this.#d.mgmt, app, status);
  }

  async #write(app: AppResource, outcome: Outcome): Promise<void> {
    const next = nextStatus(app.status, outcome, this.#d.tuning.maxHistory);
    // A resync that changed nothing writes nothing (no etcd write, no watch event every period).
    if (JSON.stringify(next) === JSON.stringify(app.status ?? {})) return;
    this.#fence();
    await writeStatus(this.#d.mgmt, app, next);
  }

  /**
   * Deletion: cascade (default) deletes every object of the App's inventory still carrying its labels, then
   * releases the finalizer; `cd.svc.space/delete-policy: orphan` releases it at once. If the destination stays
   * unreachable past `deleteTimeoutMs`, the App is released anyway (with a Warning event) so deletion never wedges
   * forever.
   */
  async #finalize(app: AppResource): Promise<ReconcileResult> {
    const finalizers = app.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER)) return { requeueAfterMs: undefined, result: 'gone' };
    if (!orphans(app)) {
      this.#fence();
      try {
        const deleted = await deleteApplied(this.#live(app, await this.#d.targetFor(app)), app);
        if (deleted > 0) await this.#announcer.event(app, 'Normal', 'Deleted', `deleted ${deleted} objects`);
      } catch (err) {
        const since = Date.parse(app.metadata.deletionTimestamp ?? '') || Date.now();
        if (Date.now() - since < this.#d.tuning.deleteTimeoutMs) {
          await this.#announcer.event(
            app,
            'Warning',
            'DeleteFailed',
            `cannot delete applied objects, retrying: ${describeError(err)}`,
          );
          return { requeueAfterMs: this.#d.tuning.errorRequeueMs, result: 'error' };
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
    await this.#d.mgmt.mergePatch(this.#ref(app), {
      metadata: { resourceVersion: app.metadata.resourceVersion, finalizers: released },
    });
    return { requeueAfterMs: undefined, result: 'gone' };
  }
}
