/**
 * Keeps an AppStore current with the management cluster: one list of App resources across all namespaces, then one
 * watch from the list's resourceVersion. A watch the server ends (timeout) is resumed from the last version seen;
 * one whose version expired (410 Gone) is replaced by a new list; any other failure relists after a backoff
 * (0.5 s doubling to 30 s) while the store keeps answering with what it holds. Until the first list arrives the
 * cache is not `synced` and readers go to the apiserver.
 */
import { type CustomObjectsApi, type KubeConfig, Watch } from '@kubernetes/client-node';
import { APP_GROUP, APP_PLURAL, APP_VERSION, type AppResource } from '../../core/app-schema.ts';
import type { Logger } from '../../log.ts';
import { AppStore } from './app-store.ts';

const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 30_000;
/** How long the server keeps one watch open; resuming from the last version is cheap. */
const WATCH_SECONDS = 300;

type WatchEnd = { how: 'ended'; version: string } | { how: 'expired' };

interface WatchEvent {
  type: string;
  object: AppResource & { code?: number };
}

/** The App cache of the API server. Call start() once; stop() ends the watch. */
export class AppCache {
  readonly store = new AppStore();
  readonly #kc: KubeConfig;
  readonly #custom: CustomObjectsApi;
  readonly #logger: Logger;
  readonly #stopped = new AbortController();
  #synced = false;
  #running: Promise<void> | undefined;

  constructor(kc: KubeConfig, custom: CustomObjectsApi, logger: Logger) {
    this.#kc = kc;
    this.#custom = custom;
    this.#logger = logger;
  }

  /** Whether the store has been filled by a full list at least once (it then stays usable across relists). */
  get synced(): boolean {
    return this.#synced;
  }

  /** Starts listing and watching in the background; never rejects (failures are logged and retried). */
  start(): void {
    this.#running ??= this.#run().catch((err: unknown) => this.#logger.error({ err }, 'app cache stopped'));
  }

  /** Ends the watch and waits for the loop to finish. */
  async stop(): Promise<void> {
    this.#stopped.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const signal = this.#stopped.signal;
    let backoff = BACKOFF_FIRST_MS;
    let version: string | undefined;
    while (!signal.aborted) {
      try {
        if (version === undefined) version = await this.#list();
        const end = await this.#watch(version);
        version = end.how === 'ended' ? end.version : undefined;
        backoff = BACKOFF_FIRST_MS;
      } catch (err) {
        if (signal.aborted) break;
        this.#logger.warn({ err, retryInMs: backoff }, 'app cache: list or watch of App resources failed');
        version = undefined;
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      }
    }
  }

  /** Lists every App and replaces the store's contents; returns the list's resourceVersion. */
  async #list(): Promise<string> {
    const list = (await this.#custom.listClusterCustomObject({
      group: APP_GROUP,
      version: APP_VERSION,
      plural: APP_PLURAL,
    })) as { items: AppResource[]; metadata?: { resourceVersion?: string } };
    const version = list.metadata?.resourceVersion ?? '';
    this.store.replace(list.items, version);
    if (!this.#synced) this.#logger.info({ apps: list.items.length }, 'app cache synced');
    this.#synced = true;
    return version;
  }

  /**
   * Follows one watch from `from` into the store. Resolves with the last version seen when the server or the
   * client's idle timeout ends it, `expired` on 410 Gone; rejects on any other failure.
   */
  #watch(from: string): Promise<WatchEnd> {
    const signal = this.#stopped.signal;
    return new Promise<WatchEnd>((resolve, reject) => {
      let version = from;
      let expired = false;
      let failure: unknown;
      let controller: AbortController | undefined;
      const onAbort = () => controller?.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      const finish = (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (expired) resolve({ how: 'expired' });
        else if (failure !== undefined) reject(failure);
        // The client ends a watch that stayed silent for 30 s with a TimeoutError: resume, nothing was lost.
        else if (err && !(err instanceof Error && err.name === 'TimeoutError') && !signal.aborted) reject(err);
        else resolve({ how: 'ended', version });
      };
      const onEvent = (type: string, object: WatchEvent['object']) => {
        if (type === 'ERROR') {
          if (object.code === 410) expired = true;
          else failure = new Error(`watch of App resources: ${JSON.stringify(object)}`);
          controller?.abort();
          return;
        }
        const next = object.metadata?.resourceVersion;
        if (next) version = next;
        if (type === 'ADDED' || type === 'MODIFIED') this.store.apply(object);
        else if (type === 'DELETED') this.store.remove(object);
      };
      new Watch(this.#kc)
        .watch(
          `/apis/${APP_GROUP}/${APP_VERSION}/${APP_PLURAL}`,
          { resourceVersion: from, allowWatchBookmarks: true, timeoutSeconds: WATCH_SECONDS },
          onEvent,
          finish,
        )
        .then(
          (c) => {
            controller = c;
            if (signal.aborted) c.abort();
          },
          (err: unknown) => finish(err ?? new Error('watch failed')),
        );
    });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
