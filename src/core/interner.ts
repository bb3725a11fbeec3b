/**
 * Shares equal values: a cache of thousands of objects applied from the same manifests holds many parts that are
 * alike (server-side apply's field sets name fields, never values), and each distinct part need live only once.
 * A canonical copy lives while anything still holds it: the pool keeps weak references and forgets a key once its
 * value is collected. Values are compared by their JSON form, so key order counts (a value in another order is kept
 * as a copy of its own, which costs memory, never correctness). Not thread-shared: one event loop.
 */
export class Interner<T extends object> {
  readonly #byKey = new Map<string, WeakRef<T>>();
  readonly #collected = new FinalizationRegistry<string>((key) => {
    // The key may have been taken by a newer value since this one went: only an empty reference is dropped.
    if (this.#byKey.get(key)?.deref() === undefined) this.#byKey.delete(key);
  });

  /**
   * The canonical copy of `value`: one already held when equal (same JSON), else `value` itself, which becomes the
   * canonical copy. Callers must not modify what they pass in or get back: other holders share it.
   */
  intern(value: T): T {
    const key = JSON.stringify(value);
    const held = this.#byKey.get(key)?.deref();
    if (held !== undefined) return held;
    this.#byKey.set(key, new WeakRef(value));
    this.#collected.register(value, key);
    return value;
  }

  /** Distinct values known (some may be collected but not yet forgotten). */
  get size(): number {
    return this.#byKey.size;
  }
}
