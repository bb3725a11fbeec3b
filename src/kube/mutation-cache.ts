/**
 * Read-your-writes over a watch cache, after client-go's MutationCache: the watch lags a write by milliseconds, so a
 * process that reads its cache right after writing would see the version before its own write. What a write
 * answered is remembered here and preferred over an older cached copy (resourceVersions are ordered:
 * ./resource-version.ts) until the watch delivers that version or a newer one, or a bounded time passes (the watch
 * is stuck or lost the event: the cache is trusted again). A delete's answer is remembered too, so a late answer of
 * an earlier write cannot bring the object back. Versions that cannot be compared always yield to the cache.
 *
 * The one such mechanism: the reconciler's App reads, the live cache of the objects it applies, and the API's App
 * store all use it. Not thread-shared: one event loop.
 */
import { cacheKey, type InformerObject } from './informer-store.ts';
import { compareVersions } from './resource-version.ts';

/** Options of a MutationCache. */
export interface MutationCacheOptions {
  /** How long a remembered write or deletion may be preferred over the cache at most. */
  ttlMs: number;
  /**
   * Whether a remembered write answers for a key the cache does not hold (client-go's `includeAdds`): yes for
   * objects just created (the watch has not delivered them yet); no where absence from the cache means the object
   * is gone or not listed yet and must be read afresh.
   */
  includeAdds: boolean;
  /** The clock (tests). */
  now?: () => number;
}

/** -1, 0 or 1 as one version is older than, equal to or newer than another; undefined when not comparable. */
export type VersionOrder = -1 | 0 | 1 | undefined;

type Remembered<T> = { at: number; obj: T; version?: undefined } | { at: number; obj?: undefined; version: string };

/** Remembered writes and deletions by key (`namespace/name` unless the caller keys otherwise). */
export class MutationCache<T extends InformerObject> {
  readonly #entries = new Map<string, Remembered<T>>();
  readonly #ttlMs: number;
  readonly #includeAdds: boolean;
  readonly #now: () => number;
  #sweptAt: number;

  constructor(options: MutationCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#includeAdds = options.includeAdds;
    this.#now = options.now ?? Date.now;
    this.#sweptAt = this.#now();
  }

  /** Remembered entries (tests, metrics). */
  get size(): number {
    return this.#entries.size;
  }

  /** Remembers what a write answered, unless what is remembered of `key` is as new already. */
  wrote(obj: T, key: string = cacheKey(obj)): void {
    if (this.#remembersNewer(key, obj.metadata.resourceVersion)) return;
    this.#set(key, { at: this.#now(), obj });
  }

  /** Remembers that `key` was deleted at `version` (a delete's answer, or the watch's DELETED event). */
  deleted(key: string, version: string | undefined): void {
    // A deletion older than what is remembered is of an earlier incarnation (the object was created again since).
    if (this.#remembersNewer(key, version)) return;
    if (version !== undefined) this.#set(key, { at: this.#now(), version });
    // Without a version the deletion cannot be ordered: a remembered write is of the object now gone.
    else if (this.#entries.get(key)?.obj) this.#entries.delete(key);
  }

  /** Forgets `key` (its object is gone for good, or the caller no longer needs it). */
  forget(key: string): void {
    this.#entries.delete(key);
  }

  /** Forgets every deletion at or before `version` (a full list taken at `version` knows them). */
  forgetDeletionsUpTo(version: string): void {
    for (const [key, entry] of this.#entries) {
      if (entry.version !== undefined && (compareVersions(entry.version, version) ?? 1) <= 0) this.#entries.delete(key);
    }
  }

  /** The remembered write of `key` (undefined when none, a deletion, or past its time). */
  written(key: string): T | undefined {
    return this.#live(key)?.obj;
  }

  /**
   * What a reader sees of `key`, given the cache's copy `cached`: the remembered write when it is newer than
   * `cached` (or `cached` is absent and adds are included), nothing when a remembered deletion is at least as new,
   * else `cached`. A remembered write the cache has caught up with is forgotten.
   */
  newest(key: string, cached: T | undefined): T | undefined {
    const entry = this.#live(key);
    if (!entry) return cached;
    if (!cached) {
      if (entry.obj && this.#includeAdds) return entry.obj;
      if (entry.obj) this.#entries.delete(key);
      return undefined;
    }
    const order = compareVersions(
      entry.obj ? entry.obj.metadata.resourceVersion : entry.version,
      cached.metadata.resourceVersion,
    );
    if (order === 1 && entry.obj) return entry.obj;
    if (order !== undefined && order >= 0 && !entry.obj) return undefined;
    if (entry.obj) this.#entries.delete(key);
    return cached;
  }

  /**
   * Tells a version of `key` the watch delivered: how it orders against the remembered write (-1: older, it changes
   * nothing the reader saw; 0: the write itself; 1: newer; undefined: nothing remembered, or not comparable). The
   * remembered write is forgotten once the watch is as new, and answered for the caller to compare with.
   */
  delivered(obj: T, key: string = cacheKey(obj)): { written: T | undefined; order: VersionOrder } {
    const written = this.#live(key)?.obj;
    if (!written) return { written: undefined, order: undefined };
    const order = compareVersions(obj.metadata.resourceVersion, written.metadata.resourceVersion);
    if (order !== -1) this.#entries.delete(key);
    return { written, order };
  }

  /** True when `key` is remembered deleted at or after `version`: an answer of that version is stale. */
  deletedSince(key: string, version: string | undefined): boolean {
    const deletedAt = this.#live(key)?.version;
    return deletedAt !== undefined && (compareVersions(version, deletedAt) ?? 1) <= 0;
  }

  /** True when what is remembered of `key` (a write or a deletion) is at least as new as `version`. */
  #remembersNewer(key: string, version: string | undefined): boolean {
    const entry = this.#live(key);
    if (!entry) return false;
    const held = entry.obj ? entry.obj.metadata.resourceVersion : entry.version;
    return (compareVersions(version, held) ?? 1) < 0;
  }

  /** The entry of `key` unless past its time (then forgotten). */
  #live(key: string): Remembered<T> | undefined {
    const entry = this.#entries.get(key);
    if (entry && this.#now() - entry.at > this.#ttlMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Stores an entry; drops every entry past its time at most once per TTL, so a write costs no scan. */
  #set(key: string, entry: Remembered<T>): void {
    this.#entries.set(key, entry);
    const now = entry.at;
    if (now - this.#sweptAt < this.#ttlMs) return;
    this.#sweptAt = now;
    for (const [k, e] of this.#entries) if (now - e.at > this.#ttlMs) this.#entries.delete(k);
  }
}
