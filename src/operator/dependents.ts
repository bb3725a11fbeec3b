/**
 * Which Apps depend on which (the reverse of spec.dependsOn), kept by the controller from its App informer, so that
 * a change of an App's state re-queues the Apps waiting for it at once instead of at their next resync.
 */
import type { AppResource } from '../core/app-schema.ts';
import { dependenciesOf } from '../core/dependencies.ts';

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

/** The reverse dependency index: App key → keys of the Apps whose spec.dependsOn names it. */
export class Dependents {
  /** dependency key → dependent keys. */
  readonly #of = new Map<string, Set<string>>();
  /** dependent key → the dependency keys it was indexed under (to unindex it on change or delete). */
  readonly #indexed = new Map<string, string[]>();

  /** Indexes (or re-indexes) `app`'s dependencies. */
  update(app: AppResource): void {
    const self = keyOf(app.metadata.namespace ?? '', app.metadata.name);
    this.remove(app);
    const deps = dependenciesOf(app).map((d) => keyOf(d.namespace, d.name));
    if (deps.length === 0) return;
    this.#indexed.set(self, deps);
    for (const dep of deps) {
      let set = this.#of.get(dep);
      if (!set) {
        set = new Set();
        this.#of.set(dep, set);
      }
      set.add(self);
    }
  }

  /** Forgets `app` as a dependent (it was deleted, or is about to be re-indexed). */
  remove(app: AppResource): void {
    const self = keyOf(app.metadata.namespace ?? '', app.metadata.name);
    for (const dep of this.#indexed.get(self) ?? []) {
      const set = this.#of.get(dep);
      set?.delete(self);
      if (set?.size === 0) this.#of.delete(dep);
    }
    this.#indexed.delete(self);
  }

  /** The keys (`namespace/name`) of the Apps that depend on `app`. */
  of(app: AppResource): string[] {
    return [...(this.#of.get(keyOf(app.metadata.namespace ?? '', app.metadata.name)) ?? [])];
  }
}

/**
 * True when a change of `obj` (from `old`) may change whether its dependents are blocked: it appeared, its spec or
 * deletion changed, or what its status says about its readiness did.
 */
export function readinessChanged(obj: AppResource, old: AppResource | undefined): boolean {
  if (!old) return true;
  return JSON.stringify(readiness(obj)) !== JSON.stringify(readiness(old));
}

function readiness(app: AppResource): unknown[] {
  const s = app.status;
  return [
    app.metadata.generation,
    app.metadata.deletionTimestamp ?? '',
    app.spec.operation ?? null,
    s?.observedGeneration,
    s?.syncStatus,
    s?.healthStatus,
    s?.healthReason,
    s?.operationState?.phase,
    s?.conditions?.map((c) => [c.type, c.status, c.message]),
  ];
}
