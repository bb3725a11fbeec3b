/**
 * A list-then-watch cache of one resource (all namespaces), like client-go's informer: lists, then watches from
 * the list's resourceVersion; on a closed stream it re-watches from the last seen version, on 410 Gone it re-lists,
 * on any other error it re-lists after a backoff (core/backoff.ts: 0.5 s doubling to 10 s, with jitter, so the
 * informers of many replicas do not relist in lockstep after an apiserver restart). Objects live in a store (./informer-store.ts;
 * a caller may bring its own, e.g. one that orders versions and keeps derived views). Every change that reaches the
 * store, from the watch or from the caller's own writes (`observe`), is told to the handlers and to subscribers,
 * all of them or those of one key. Optionally narrowed by a label selector, and with a transform that slims each
 * object before it is stored (and handed to handlers and subscribers).
 */
import { type BackoffPolicy, backoffDelay } from '../core/backoff.ts';
import { sleep } from '../core/concurrency.ts';
import type { KubeClient } from './client.ts';
import { KubeApiError } from './errors.ts';
import { cacheKey, type InformerObject, type InformerStore, MapStore } from './informer-store.ts';

export { cacheKey, type InformerObject, type InformerStore, MapStore, withoutManagedFields } from './informer-store.ts';

/** One change of the cache. */
export type InformerEvent<T> = { type: 'upsert'; obj: T; old: T | undefined } | { type: 'delete'; obj: T };

/** Callbacks of an informer; they must not throw. */
export interface InformerHandlers<T extends InformerObject> {
  onUpsert?(obj: T, old: T | undefined): void;
  onDelete?(obj: T): void;
  onError?(err: unknown): void;
}

/** Options of an informer. */
export interface InformerOptions<T extends InformerObject> {
  /** Where objects are kept (default a MapStore). */
  store?: InformerStore<T>;
  /** Only objects matching this label selector are listed and watched (e.g. `cd.svc.space/app`: the key exists). */
  labelSelector?: string;
  /**
   * Applied to every listed, watched or observed object before it is stored or told (e.g. to drop
   * `metadata.managedFields`). Must keep the object's metadata name, namespace and resourceVersion.
   */
  transform?: (obj: T) => T;
}

/** Objects per page of a list (client-go's pager reads 500 at a time). */
const LIST_PAGE = 500;

/** The pause before listing again after a failed list or watch. */
const RELIST_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 10_000, jitter: 0.2 };

/** Watches the collection at `path` (e.g. `/apis/cd.svc.space/v1alpha1/apps`). */
export class Informer<T extends InformerObject> {
  readonly #client: KubeClient;
  readonly #path: string;
  readonly #handlers: InformerHandlers<T>;
  readonly #store: InformerStore<T>;
  readonly #labelSelector: string | undefined;
  readonly #transform: (obj: T) => T;
  readonly #listeners = new Set<(event: InformerEvent<T>) => void>();
  readonly #keyListeners = new Map<string, Set<(event: InformerEvent<T>) => void>>();
  #abort = new AbortController();
  #synced = false;
  #loop: Promise<void> | undefined;

  constructor(client: KubeClient, path: string, handlers: InformerHandlers<T> = {}, options: InformerOptions<T> = {}) {
    this.#client = client;
    this.#path = path;
    this.#handlers = handlers;
    this.#store = options.store ?? new MapStore<T>();
    this.#labelSelector = options.labelSelector;
    this.#transform = options.transform ?? ((obj) => obj);
  }

  /** True once the first list has been loaded. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Every cached object. */
  list(): T[] {
    return [...this.#store.values()];
  }

  /** The cached object with key `namespace/name` (see cacheKey), or undefined. */
  get(key: string): T | undefined {
    return this.#store.get(key);
  }

  /**
   * Calls `listener` on every change of the cache (of the object `key` only, when given) until the returned
   * function is called. Listeners must not throw (a throw is reported to onError).
   */
  subscribe(listener: (event: InformerEvent<T>) => void, key?: string): () => void {
    if (key === undefined) {
      this.#listeners.add(listener);
      return () => this.#listeners.delete(listener);
    }
    let set = this.#keyListeners.get(key);
    if (!set) {
      set = new Set();
      this.#keyListeners.set(key, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#keyListeners.get(key) === set) this.#keyListeners.delete(key);
    };
  }

  /**
   * Offers a version of an object learned outside the watch (a write's answer, a GET), so the cache shows one's own
   * writes at once. The store decides whether it is news (the watch may have brought it, or a newer one, already).
   */
  observe(obj: T): void {
    this.#apply('MODIFIED', obj);
  }

  /** Like observe, for an object known deleted (a delete's answer). */
  observeDeleted(obj: T): void {
    this.#apply('DELETED', obj);
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
    let failures = 0;
    while (!signal.aborted) {
      try {
        const rv = await this.#relist();
        this.#synced = true;
        failures = 0;
        onListed();
        await this.#watchFrom(rv, signal);
      } catch (err) {
        if (signal.aborted) return;
        if (!(err instanceof KubeApiError && err.status === 410)) this.#handlers.onError?.(err);
        await sleep(backoffDelay(failures++, RELIST_BACKOFF), signal);
      }
    }
  }

  /**
   * Watches from `listed` on, re-watching from the last version seen whenever the server ends the stream; returns
   * when that version is gone (410: list again) or `signal` aborts.
   */
  async #watchFrom(listed: string, signal: AbortSignal): Promise<void> {
    let rv = listed;
    let gone = false;
    const onEvent = (type: string, object: Record<string, unknown>) => {
      const obj = object as unknown as T;
      if (type === 'ERROR') {
        if ((object as { code?: number }).code === 410) gone = true;
        return;
      }
      rv = obj.metadata.resourceVersion ?? rv;
      if (type !== 'BOOKMARK') this.#apply(type, obj);
    };
    while (!signal.aborted && !gone) {
      await this.#client.watch(
        this.#path,
        { resourceVersion: rv, labelSelector: this.#labelSelector },
        onEvent,
        signal,
      );
    }
  }

  /**
   * Lists everything into the store, LIST_PAGE objects per request (one snapshot: every page is read at the first
   * page's resourceVersion), and tells what changed (deletes for vanished objects). Each page is slimmed as it
   * arrives, so the whole collection is never held as one answer: 20,000 Apps in one LIST are tens of MiB of JSON
   * that stay resident in the process's heap long after the list (bench/README.md, issue 29). A continue token
   * that expired (410) fails the list; the loop lists again.
   */
  async #relist(): Promise<string> {
    const items: T[] = [];
    let resourceVersion = '';
    let next: string | undefined;
    do {
      const res = await this.#client.request<{
        items: T[];
        metadata: { resourceVersion: string; continue?: string };
      }>(this.#path, { query: { labelSelector: this.#labelSelector, limit: LIST_PAGE, continue: next } });
      for (const obj of res.items) items.push(this.#transform(obj));
      resourceVersion = res.metadata.resourceVersion;
      next = res.metadata.continue || undefined;
    } while (next !== undefined);
    const before = new Map<string, T>();
    for (const obj of this.#store.values()) before.set(cacheKey(obj), obj);
    this.#store.replace(items, resourceVersion);
    for (const obj of this.#store.values()) {
      const k = cacheKey(obj);
      const old = before.get(k);
      before.delete(k);
      if (old?.metadata.resourceVersion !== obj.metadata.resourceVersion) this.#emit({ type: 'upsert', obj, old });
    }
    for (const old of before.values()) this.#emit({ type: 'delete', obj: old });
    return resourceVersion;
  }

  #apply(type: string, raw: T): void {
    const obj = this.#transform(raw);
    if (type === 'DELETED') {
      const held = this.#store.get(cacheKey(obj));
      if (this.#store.remove(obj)) this.#emit({ type: 'delete', obj: held ?? obj });
      return;
    }
    const old = this.#store.get(cacheKey(obj));
    if (this.#store.upsert(obj)) this.#emit({ type: 'upsert', obj, old });
  }

  #emit(event: InformerEvent<T>): void {
    const call = (fn: () => void) => {
      try {
        fn();
      } catch (err) {
        this.#handlers.onError?.(err);
      }
    };
    if (event.type === 'upsert') call(() => this.#handlers.onUpsert?.(event.obj, event.old));
    else call(() => this.#handlers.onDelete?.(event.obj));
    for (const listener of this.#listeners) call(() => listener(event));
    const keyed = this.#keyListeners.get(cacheKey(event.obj));
    if (keyed) for (const listener of [...keyed]) call(() => listener(event));
  }
}
