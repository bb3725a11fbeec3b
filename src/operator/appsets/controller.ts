/**
 * The AppSet controller (issue 27 item 1): an informer on AppSets feeding a keyed work queue, reconciled while this
 * process leads (./reconcile.ts). An AppSet is run again when it changes (not its status), when one of its Apps is
 * created, deleted or changes its spec, sync or health (the App informer's events, by the `cd.svc.space/appset`
 * label; under a rolling sync also its revision and operation), when a push event concerns it (`refresh`: its Git
 * read anew at once, ./push-match.ts), and every `resyncMs` while it reads Git or registered clusters (a push
 * without a webhook, a label change, is seen then).
 * Without the AppSet CRD on the management cluster (a chart from before it) the controller stays off, said once.
 */
import type { Logger } from 'pino';
import {
  APP_API_VERSION,
  APP_GROUP,
  APP_VERSION,
  APPSET_KIND,
  APPSET_LABEL,
  APPSET_PLURAL,
} from '../../core/app-names.ts';
import type { AppResource } from '../../core/app-schema.ts';
import type { AppSetResource } from '../../core/appset-schema.ts';
import { describeError } from '../../core/errors.ts';
import type { InputSources } from '../../engine/appset-inputs.ts';
import { cacheKey, Informer, type InformerEvent, type KubeClient, type ObjectClient } from '../../kube/index.ts';
import { type BackoffPolicy, DEFAULT_BACKOFF, WorkQueue } from '../queue.ts';

/** Default period of AppSets reading Git or clusters. */
export const APPSET_RESYNC_MS = 60_000;

/** What the controller reads Apps through (the App controller's informer). */
export interface AppsView {
  /** Every App of the cache, or undefined before its first list. */
  apps(): AppResource[] | undefined;
  subscribe(listener: (event: InformerEvent<AppResource>) => void): () => void;
}

export interface AppSetControllerOptions extends InputSources {
  client: KubeClient;
  mgmt: ObjectClient;
  apps: AppsView;
  mayWrite: () => boolean;
  logger: Logger;
  namespace?: string;
  resyncMs?: number;
  backoff?: BackoffPolicy;
}

type ReconcileModule = typeof import('./reconcile.ts');

/** True when an AppSet change is one to act on (not the controller's own status write). */
function relevant(obj: AppSetResource, old: AppSetResource | undefined): boolean {
  return (
    !old ||
    obj.metadata.generation !== old.metadata.generation ||
    Boolean(obj.metadata.deletionTimestamp) !== Boolean(old.metadata.deletionTimestamp)
  );
}

/** True when an App's change may change what its AppSet does or shows. */
function appChanged(event: InformerEvent<AppResource>): boolean {
  if (event.type === 'delete' || !event.old) return true;
  const { obj, old } = event;
  return (
    obj.metadata.generation !== old.metadata.generation ||
    obj.status?.syncStatus !== old.status?.syncStatus ||
    obj.status?.healthStatus !== old.status?.healthStatus ||
    // A rolling sync moves on an App's revision and operation (src/core/appset-rollout.ts).
    obj.status?.revision !== old.status?.revision ||
    obj.status?.observedRevision !== old.status?.observedRevision ||
    obj.status?.operationState?.phase !== old.status?.operationState?.phase
  );
}

/** Watches AppSets and reconciles them while leading. */
export class AppSetController {
  readonly #options: AppSetControllerOptions;
  #informer: Informer<AppSetResource> | undefined;
  #unsubscribe: (() => void) | undefined;
  #queue: WorkQueue | undefined;
  #module: Promise<ReconcileModule> | undefined;
  /** AppSets a push concerns, whose next run fetches its branches instead of trusting the cache's age. */
  readonly #pushed = new Set<string>();

  constructor(options: AppSetControllerOptions) {
    this.#options = options;
  }

  /** Starts the informer when the AppSet CRD is served (every replica). */
  async start(): Promise<void> {
    const { client, mgmt, logger, namespace } = this.#options;
    const served = await mgmt.discovery.lookup(APP_API_VERSION, APPSET_KIND).catch(() => undefined);
    if (!served) {
      logger.info('the AppSet CRD is not installed: AppSets are not reconciled');
      return;
    }
    const scope = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    this.#informer = new Informer<AppSetResource>(
      client,
      `/apis/${APP_GROUP}/${APP_VERSION}${scope}/${APPSET_PLURAL}`,
      {
        onUpsert: (obj, old) => {
          if (relevant(obj, old)) this.#queue?.add(cacheKey(obj));
        },
        onDelete: (obj) => this.#queue?.forget(cacheKey(obj)),
        onError: (err) => logger.warn({ err: describeError(err) }, 'AppSet watch failed; relisting'),
      },
    );
    this.#unsubscribe = this.#options.apps.subscribe((event) => {
      const owner = event.obj.metadata.labels?.[APPSET_LABEL];
      if (owner && appChanged(event)) this.#queue?.add(`${event.obj.metadata.namespace ?? ''}/${owner}`);
    });
    await this.#informer.start();
  }

  /** Starts reconciling (on becoming leader): every known AppSet is queued once. */
  startProcessing(): void {
    if (this.#queue || !this.#informer) return;
    const queue = new WorkQueue(this.#options.backoff ?? DEFAULT_BACKOFF);
    this.#queue = queue;
    queue.start(2, (key) => this.#handle(key));
    for (const set of this.#informer.list()) queue.add(cacheKey(set));
  }

  /** The AppSets of the informer's cache, undefined before it started (or without the CRD). */
  appSets(): AppSetResource[] | undefined {
    return this.#informer?.list();
  }

  /**
   * Runs the AppSet `key` (namespace/name) again now, fetching its Git branches (a push event concerns it). A
   * replica not reconciling keeps nothing: the one that is receives the push too, or its resync sees it.
   */
  refresh(key: string): void {
    if (!this.#queue) return;
    this.#pushed.add(key);
    this.#queue.add(key);
  }

  /** Stops reconciling; resolves when running reconciles finished. */
  async stopProcessing(): Promise<void> {
    const q = this.#queue;
    this.#queue = undefined;
    await q?.stop();
  }

  /** Stops everything. */
  async stop(): Promise<void> {
    await this.stopProcessing();
    this.#unsubscribe?.();
    await this.#informer?.stop();
  }

  async #handle(key: string) {
    const appSet = this.#informer?.get(key);
    const apps = this.#options.apps.apps();
    // Before the App informer's first list, every App would look missing: wait for it.
    if (!appSet) return undefined;
    if (!apps) return 1_000;
    this.#module ??= import('./reconcile.ts');
    const { reconcileAppSet } = await this.#module;
    const pushed = this.#pushed.delete(key);
    try {
      return await reconcileAppSet(
        {
          ...this.#options,
          ...(pushed ? { reader: this.#options.reader.fresh() } : {}),
          appsIn: (ns) => (this.#options.apps.apps() ?? []).filter((a) => a.metadata.namespace === ns),
          resyncMs: this.#options.resyncMs ?? APPSET_RESYNC_MS,
        },
        appSet,
      );
    } catch (err) {
      this.#options.logger.warn({ appSet: key, err: describeError(err) }, 'AppSet reconcile failed');
      return 'backoff' as const;
    }
  }
}
