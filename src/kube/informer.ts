/**
 * A list-then-watch cache of one resource (all namespaces), like client-go's informer: lists, then watches from
 * the list's resourceVersion; on a closed stream it re-watches from the last seen version, on 410 Gone (or any
 * error) it re-lists after a short pause. Handlers get every add, update and delete. Optionally narrowed by a
 * label selector, and with a transform that slims each object before it is cached (and handed to the handlers).
 */
import { KubeApiError, type KubeClient } from './client.ts';

/** The minimum an informer needs of an object. */
export interface InformerObject {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

/** Callbacks of an informer; they must not throw. */
export interface InformerHandlers<T extends InformerObject> {
  onUpsert(obj: T, old: T | undefined): void;
  onDelete(obj: T): void;
  onError?(err: unknown): void;
}

/** Optional narrowing and slimming of what an informer caches. */
export interface InformerOptions<T extends InformerObject> {
  /** Only objects matching this label selector are listed and watched (e.g. `cd.svc.space/app`: the key exists). */
  labelSelector?: string;
  /**
   * Applied to every listed or watched object before it is cached or handed to the handlers (e.g. to drop
   * `metadata.managedFields`). Must return an object with the same metadata name, namespace and resourceVersion.
   */
  transform?: (obj: T) => T;
}

/** `namespace/name` of an object. */
export const cacheKey = (o: InformerObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** Watches the collection at `path` (e.g. `/apis/cd.svc.space/v1alpha1/apps`). */
export class Informer<T extends InformerObject> {
  readonly #client: KubeClient;
  readonly #path: string;
  readonly #h: InformerHandlers<T>;
  readonly #options: InformerOptions<T>;
  readonly #cache = new Map<string, T>();
  #abort = new AbortController();
  #synced = false;
  #loop: Promise<void> | undefined;

  constructor(client: KubeClient, path: string, handlers: InformerHandlers<T>, options: InformerOptions<T> = {}) {
    this.#client = client;
    this.#path = path;
    this.#h = handlers;
    this.#options = options;
  }

  /** True once the first list has been loaded. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Every cached object. */
  list(): T[] {
    return [...this.#cache.values()];
  }

  /** The cached object with `key` (`namespace/name`, see cacheKey; `/name` for cluster-scoped), if any. */
  get(key: string): T | undefined {
    return this.#cache.get(key);
  }

  /** Starts list-and-watch; resolves once the first list is cached. */
  async start(): Promise<void> {
    this.#abort = new AbortController();
    let firstList: () => void = () => {};
    const listed = new Promise<void>((r) => {
      firstList = r;
    });
    this.#loop = this.#run(firstList);
    await Promise.race([listed, this.#loop]);
  }

  /** Stops watching. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
  }

  async #run(onListed: () => void): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      try {
        let rv = await this.#relist();
        this.#synced = true;
        onListed();
        for (;;) {
          if (signal.aborted) return;
          let gone = false;
          await this.#client.watch(
            this.#path,
            { resourceVersion: rv, labelSelector: this.#options.labelSelector },
            (type, object) => {
              const obj = object as T;
              if (type === 'BOOKMARK') {
                rv = obj.metadata.resourceVersion ?? rv;
                return;
              }
              if (type === 'ERROR') {
                if ((object as { code?: number }).code === 410) gone = true;
                return;
              }
              rv = obj.metadata.resourceVersion ?? rv;
              this.#apply(type, obj);
            },
            signal,
          );
          if (gone) break;
        }
      } catch (err) {
        if (signal.aborted) return;
        if (!(err instanceof KubeApiError && err.status === 410)) this.#h.onError?.(err);
        await sleep(1000, signal);
      }
    }
  }

  /** Lists everything, reconciling the cache (synthesising deletes for vanished objects). */
  async #relist(): Promise<string> {
    const res = await this.#client.request<{ items: T[]; metadata: { resourceVersion: string } }>(this.#path, {
      query: { labelSelector: this.#options.labelSelector },
    });
    const seen = new Set<string>();
    for (const item of res.items) {
      seen.add(cacheKey(item));
      this.#apply('MODIFIED', item);
    }
    for (const [k, old] of this.#cache) {
      if (!seen.has(k)) {
        this.#cache.delete(k);
        this.#h.onDelete(old);
      }
    }
    return res.metadata.resourceVersion;
  }

  #apply(type: string, raw: T): void {
    const obj = this.#options.transform ? this.#options.transform(raw) : raw;
    const k = cacheKey(obj);
    if (type === 'DELETED') {
      this.#cache.delete(k);
      this.#h.onDelete(obj);
      return;
    }
    const old = this.#cache.get(k);
    if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) return;
    this.#cache.set(k, obj);
    this.#h.onUpsert(obj, old);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
}
