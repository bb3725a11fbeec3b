/**
 * The in-memory copy of App resources that the API server reads from: the store of its App Informer (src/kube), fed
 * by the Informer's list and watch and by the API's own writes. Every change is ordered by resourceVersion, so a late answer can never replace a newer version of an App,
 * nor bring back one already deleted. Each entry keeps its API view and that view's JSON, computed once per resourceVersion, and each
 * namespace keeps its entries sorted by name, so a list neither re-maps nor re-sorts unchanged Apps.
 */
import type { AppResource } from '../../core/app-schema.ts';
import type { InformerStore } from '../../kube/informer-store.ts';
import { MutationCache } from '../../kube/mutation-cache.ts';
import { compareVersions } from '../../kube/resource-version.ts';
import { type AppView, appView } from '../apps/view.ts';
import { appJson } from '../apps/view-json.ts';

/** One cached App, its view and the view's JSON (each computed on first use, for this resourceVersion only). */
export interface AppEntry {
  readonly app: AppResource;
  readonly view: AppView;
  /** The view as UTF-8 JSON (see apps/view-json.ts). */
  readonly json: Buffer;
}

/**
 * How long a deletion is remembered beyond the last list, to refuse a late answer (of a write or a GET) for an App
 * already gone: far longer than any request may take (the client's idle timeout is 30 s).
 */
const DELETION_TTL_MS = 5 * 60_000;

/** The order of `GET /apps`: names by localeCompare, ties broken by code units so the order is total. */
function byName(a: AppEntry, b: AppEntry): number {
  const x = a.app.metadata.name;
  const y = b.app.metadata.name;
  return x.localeCompare(y) || (x < y ? -1 : x > y ? 1 : 0);
}

class Entry implements AppEntry {
  readonly app: AppResource;
  #view: AppView | undefined;
  #json: Buffer | undefined;
  constructor(app: AppResource) {
    this.app = app;
  }
  get view(): AppView {
    this.#view ??= appView(this.app);
    return this.#view;
  }
  get json(): Buffer {
    this.#json ??= appJson(this.view);
    return this.#json;
  }
}

class Namespace {
  readonly byName = new Map<string, Entry>();
  #sorted: Entry[] | undefined;
  set(entry: Entry): void {
    const had = this.byName.get(entry.app.metadata.name);
    this.byName.set(entry.app.metadata.name, entry);
    if (!had) this.#sorted = undefined;
    else if (this.#sorted) this.#sorted[this.#sorted.indexOf(had)] = entry;
  }
  delete(name: string): void {
    if (this.byName.delete(name)) this.#sorted = undefined;
  }
  sorted(): readonly AppEntry[] {
    this.#sorted ??= [...this.byName.values()].sort(byName);
    return this.#sorted;
  }
}

/** Apps by namespace and name, each change ordered by resourceVersion. Not thread-shared: one event loop. */
export class AppStore implements InformerStore<AppResource> {
  #namespaces = new Map<string, Namespace>();
  /**
   * Deletions newer than the last list (src/kube's MutationCache). The API's own writes need no remembering there:
   * they go into the store itself, which orders every version it is offered.
   */
  readonly #deletions = new MutationCache<AppResource>({ ttlMs: DELETION_TTL_MS, includeAdds: false });
  /** The resourceVersion of the last full list: an App absent from the store and not newer was deleted. */
  #floor: string | undefined;
  /** The newest resourceVersion the store has seen (list, change or deletion): what a list answer is as of. */
  #version: string | undefined;

  /** The newest resourceVersion seen (undefined before any): a list read now reflects every change up to it. */
  get version(): string | undefined {
    return this.#version;
  }

  #saw(version: string | undefined): void {
    if (version !== undefined && (this.#version === undefined || compareVersions(version, this.#version) === 1)) {
      this.#version = version;
    }
  }

  /** The App with its view, or undefined when the store does not hold it. */
  entry(namespace: string, name: string): AppEntry | undefined {
    return this.#namespaces.get(namespace)?.byName.get(name);
  }

  /** The App under `namespace/name` (the Informer's key), or undefined. */
  get(key: string): AppResource | undefined {
    const slash = key.indexOf('/');
    return this.entry(key.slice(0, slash), key.slice(slash + 1))?.app;
  }

  /** Every App held, in no particular order. */
  *values(): IterableIterator<AppResource> {
    for (const ns of this.#namespaces.values()) for (const entry of ns.byName.values()) yield entry.app;
  }

  /** Every App of the namespace, sorted as `GET /apps` answers (see byName). Do not mutate. */
  list(namespace: string): readonly AppEntry[] {
    return this.#namespaces.get(namespace)?.sorted() ?? [];
  }

  /**
   * Stores a version of an App (from a watch event or a write's answer) unless the store holds it at the same or a
   * newer resourceVersion, or knows it deleted at or after that version. Returns whether it was stored.
   */
  upsert(app: AppResource): boolean {
    const namespace = app.metadata.namespace ?? '';
    const name = app.metadata.name;
    const version = app.metadata.resourceVersion;
    const held = this.entry(namespace, name);
    if (held) {
      const order = compareVersions(version, held.app.metadata.resourceVersion);
      if (order !== undefined && order <= 0) return false;
    } else if (this.#deletedSince(`${namespace}/${name}`, version)) {
      return false;
    }
    this.#namespace(namespace).set(new Entry(app));
    this.#saw(version);
    return true;
  }

  /**
   * Forgets an App deleted at `app.metadata.resourceVersion` (a DELETED event, or a delete's answer), unless the
   * store holds a newer version (a new App of the same name). Returns whether it was removed.
   */
  remove(app: AppResource): boolean {
    const namespace = app.metadata.namespace ?? '';
    const name = app.metadata.name;
    const version = app.metadata.resourceVersion;
    const held = this.entry(namespace, name);
    if (held && (compareVersions(version, held.app.metadata.resourceVersion) ?? 1) < 0) return false;
    this.#saw(version);
    this.#deletions.deleted(`${namespace}/${name}`, version);
    if (!held) return false;
    this.#namespaces.get(namespace)?.delete(name);
    return true;
  }

  /**
   * Replaces the contents with a full list taken at `listVersion`. Apps the store holds at a newer version than
   * the list (written by the API while the list was on its way) are kept; deletions up to the list are forgotten.
   */
  replace(items: readonly AppResource[], listVersion: string): void {
    const previous = this.#namespaces;
    this.#namespaces = new Map();
    this.#floor = listVersion;
    this.#saw(listVersion);
    this.#deletions.forgetDeletionsUpTo(listVersion);
    for (const app of items) this.#namespace(app.metadata.namespace ?? '').set(new Entry(app));
    for (const ns of previous.values()) {
      for (const entry of ns.byName.values()) {
        if ((compareVersions(entry.app.metadata.resourceVersion, listVersion) ?? -1) > 0) this.upsert(entry.app);
      }
    }
  }

  /** Whether the App `key` is known deleted at or after `version` (a remembered deletion, or the last list). */
  #deletedSince(key: string, version: string | undefined): boolean {
    if (this.#floor !== undefined && (compareVersions(version, this.#floor) ?? 1) <= 0) return true;
    return this.#deletions.deletedSince(key, version);
  }

  #namespace(name: string): Namespace {
    let ns = this.#namespaces.get(name);
    if (!ns) {
      ns = new Namespace();
      this.#namespaces.set(name, ns);
    }
    return ns;
  }
}
