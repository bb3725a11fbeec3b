/**
 * The controller: an informer on Apps in every namespace feeding a keyed work queue, and the reconciler as the
 * queue's handler. The informer runs in every replica (warm cache); the queue only runs while this process
 * leads, so one App is reconciled by one process, one worker at a time.
 */
import type { Logger } from 'pino';
import { APP_GROUP, APP_PLURAL, APP_VERSION } from '../core/app-names.ts';
import type { AppResource } from '../core/app-schema.ts';
import { describeError } from '../core/errors.ts';
import type { AppKey } from '../engine/labels.ts';
import { cacheKey, Informer, type InformerEvent, type KubeClient, withoutManagedFields } from '../kube/index.ts';
import { Dependents, readinessChanged } from './dependents.ts';
import type { OperatorMetrics } from './metrics.ts';
import { type BackoffPolicy, type Requeue, WorkQueue } from './queue.ts';
import type { Reconciler } from './reconciler.ts';

/** Dependencies of the controller. */
export interface ControllerOptions {
  client: KubeClient;
  reconciler: Reconciler;
  metrics: OperatorMetrics;
  logger: Logger;
  /** Reconcile workers (default 8); as many more serve requested operations alone. */
  workers?: number;
  /** Watch only this namespace (default: all namespaces). */
  namespace?: string;
  /** Per-App backoff after transient reconcile failures (default: the queue's, 1 s doubling up to 30 s). */
  backoff?: BackoffPolicy;
  /** With sharding: whether this replica may reconcile the App now (default: every App). */
  owns?: (app: AppKey) => boolean;
}

/** True when the change is one the reconciler must react to (not our own status write). */
function relevant(obj: AppResource, old: AppResource | undefined): boolean {
  if (!old) return true;
  const m = obj.metadata;
  const o = old.metadata;
  return (
    m.generation !== o.generation ||
    Boolean(m.deletionTimestamp) !== Boolean(o.deletionTimestamp) ||
    JSON.stringify(m.annotations ?? {}) !== JSON.stringify(o.annotations ?? {}) ||
    JSON.stringify(m.finalizers ?? []) !== JSON.stringify(o.finalizers ?? [])
  );
}

/**
 * True when `obj` carries an operation `old` did not (a sync, deploy, rollback… just requested by a user or a push):
 * its reconcile goes ahead of the queue.
 */
function operationRequested(obj: AppResource, old: AppResource | undefined): boolean {
  const op = obj.spec.operation;
  if (!op) return false;
  const before = old?.spec.operation;
  return !before || before.id !== op.id || before.initiatedAt !== op.initiatedAt || before.kind !== op.kind;
}

/** Watches Apps and reconciles them while leading. */
export class Controller {
  readonly #options: ControllerOptions;
  readonly #informer: Informer<AppResource>;
  /** Who waits for whom (spec.dependsOn reversed): a dependency's change re-queues its dependents. */
  readonly #dependents = new Dependents();
  #queue: WorkQueue | undefined;
  /** Reconciles running now, by key: a hand-over waits for those of the Apps that moved away. */
  readonly #inflight = new Map<string, Promise<unknown>>();

  constructor(options: ControllerOptions) {
    this.#options = options;
    const scope = options.namespace ? `/namespaces/${encodeURIComponent(options.namespace)}` : '';
    this.#informer = new Informer(
      options.client,
      `/apis/${APP_GROUP}/${APP_VERSION}${scope}/${APP_PLURAL}`,
      {
        onUpsert: (obj, old) => {
          options.reconciler.observed(obj);
          if (relevant(obj, old)) this.#queue?.add(cacheKey(obj), operationRequested(obj, old));
          this.#dependents.update(obj);
          if (readinessChanged(obj, old)) for (const key of this.#dependents.of(obj)) this.#queue?.add(key);
        },
        onDelete: (obj) => {
          this.#dependents.remove(obj);
          for (const key of this.#dependents.of(obj)) this.#queue?.add(key);
          this.#queue?.forget(cacheKey(obj));
          options.reconciler.forget({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
          options.metrics.forgetApp({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
        },
        onError: (err) => options.logger.warn({ err: describeError(err) }, 'App watch failed; relisting'),
      },
      // The cache queues work, lists Apps and is what a reconcile reads, and nothing of that reads managedFields: the
      // bulk of an App with a status, dead weight held for every App (bench/README.md, issue 18).
      { transform: withoutManagedFields },
    );
  }

  /** True once the informer has its first list. */
  get synced(): boolean {
    return this.#informer.synced;
  }

  /**
   * Every App in the informer's cache (as of the last watch event), or undefined before the first list. Callers
   * must not modify the objects.
   */
  apps(): AppResource[] | undefined {
    return this.#informer.synced ? this.#informer.list() : undefined;
  }

  /** Calls `listener` on every change of the App cache until the returned function is called (the AppSet controller). */
  subscribe(listener: (event: InformerEvent<AppResource>) => void): () => void {
    return this.#informer.subscribe(listener);
  }

  /** The App as the informer last saw it (without managedFields), or undefined (not seen, or before the first list). */
  cached(app: AppKey): AppResource | undefined {
    return this.#informer.synced ? this.#informer.get(`${app.namespace}/${app.name}`) : undefined;
  }

  /**
   * Queues the App `app` now, if it is one this controller watches (an App of another namespace, or one already
   * deleted, is ignored). For events from outside the App informer: a managed object's health changed.
   */
  enqueue(app: AppKey): void {
    const key = `${app.namespace}/${app.name}`;
    if (this.#informer.get(key)) this.#queue?.add(key);
  }

  /** Starts the informer (every replica). */
  async start(): Promise<void> {
    await this.#informer.start();
  }

  /** Starts reconciling (on becoming leader): every known App is queued once. */
  startProcessing(): void {
    if (this.#queue) return;
    const queue = new WorkQueue(this.#options.backoff);
    this.#queue = queue;
    const workers = this.#options.workers ?? 8;
    // As many again for requested operations: a push to a shared repository requests a sync of every App on it.
    queue.start(workers, (key) => this.#handle(key), workers);
    for (const app of this.#informer.list()) queue.add(cacheKey(app));
  }

  /** Stops reconciling (on losing leadership or shutdown); resolves when running reconciles finished. */
  async stopProcessing(): Promise<void> {
    const q = this.#queue;
    this.#queue = undefined;
    await q?.stop();
  }

  /** Stops everything. */
  async stop(): Promise<void> {
    await this.stopProcessing();
    await this.#informer.stop();
  }

  /** With sharding: queues every known App this replica owns now and `gained` picks (it just gained them). */
  queueOwned(gained: (app: AppKey) => boolean): void {
    for (const app of this.#informer.list()) {
      const key = keyOf(cacheKey(app));
      if (this.#owns(key) && gained(key)) this.#queue?.add(cacheKey(app));
    }
  }

  /** How many known Apps this replica owns now (all of them without sharding). */
  ownedCount(): number {
    return this.#informer.list().filter((app) => this.#owns(keyOf(cacheKey(app)))).length;
  }

  /** Resolves once no reconcile of an App this replica no longer owns is running (they end at their next write). */
  async released(): Promise<void> {
    const moved = [...this.#inflight].filter(([key]) => !this.#owns(keyOf(key))).map(([, running]) => running);
    await Promise.allSettled(moved);
  }

  #owns(app: AppKey): boolean {
    return this.#options.owns ? this.#options.owns(app) : true;
  }

  async #handle(key: string): Promise<Requeue> {
    const app = keyOf(key);
    // Another replica's App (sharding): dropped here; it is queued again if it comes back to this replica.
    if (!this.#owns(app)) return undefined;
    const started = performance.now();
    const running = this.#options.reconciler.reconcile(app);
    this.#inflight.set(key, running);
    try {
      const res = await running;
      this.#options.metrics.reconcile(res.result, (performance.now() - started) / 1000);
      return res.requeue;
    } finally {
      this.#inflight.delete(key);
    }
  }
}

/** The App key of a queue key (`namespace/name`). */
function keyOf(key: string): AppKey {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
