/**
 * Where an Informer keeps its objects. The default MapStore keeps the latest version per key; a caller with more
 * to keep (resourceVersion ordering against its own writes, tombstones, derived views) brings its own store, and
 * the Informer still does the listing, watching and telling.
 */

/** The minimum an informer needs of an object. */
export interface InformerObject {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

/** `namespace/name` of an object. */
export const cacheKey = (o: InformerObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/**
 * `obj` without `metadata.managedFields` (a shallow copy; the input is not modified): the transform of a cache whose
 * readers never look at field ownership, which is often the largest part of a small object.
 */
export function withoutManagedFields<T extends InformerObject>(obj: T): T {
  const { managedFields: _fields, ...metadata } = obj.metadata as T['metadata'] & { managedFields?: unknown };
  return { ...obj, metadata };
}

/** The storage of an Informer. */
export interface InformerStore<T extends InformerObject> {
  /** The object stored under `key` (`namespace/name`). */
  get(key: string): T | undefined;
  /** Every stored object. */
  values(): Iterable<T>;
  /** Stores a version unless the store already holds that one (or knows better); returns whether it was stored. */
  upsert(obj: T): boolean;
  /** Forgets an object that was deleted; returns whether the store held it and removed it. */
  remove(obj: T): boolean;
  /** Replaces the contents with a full list taken at resourceVersion `listVersion`. */
  replace(items: readonly T[], listVersion: string): void;
}

/** The latest version of each object by key; a version equal to the one held is not stored again. */
export class MapStore<T extends InformerObject> implements InformerStore<T> {
  readonly #map = new Map<string, T>();

  get(key: string): T | undefined {
    return this.#map.get(key);
  }

  values(): Iterable<T> {
    return this.#map.values();
  }

  upsert(obj: T): boolean {
    const k = cacheKey(obj);
    const old = this.#map.get(k);
    if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) return false;
    this.#map.set(k, obj);
    return true;
  }

  remove(obj: T): boolean {
    return this.#map.delete(cacheKey(obj));
  }

  replace(items: readonly T[], _listVersion: string): void {
    this.#map.clear();
    for (const item of items) this.#map.set(cacheKey(item), item);
  }
}
