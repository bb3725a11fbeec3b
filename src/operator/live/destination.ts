/**
 * The live state of one destination cluster: for every kind an App applies there, one informer over the objects
 * carrying the managed label (`cd.svc.space/app`, any value), started the first time the kind is asked for, with
 * the bulky fields slimmed away (./slim.ts). "Is this rendered object live, and what does it look like" is then a
 * map lookup instead of a GET, and a change of an object's health status (or of its owner labels) calls
 * `onChange` with the App its labels name, so the App is reconciled at once instead of on a timer; so does a change
 * of the fields svc owns (drift: another writer took one), and a deletion.
 *
 * Read-your-writes: the watch lags a write by a few milliseconds, so the objects this process just applied are
 * remembered (`remember`, src/kube's MutationCache) and preferred over an older cached copy until the watch delivers
 * them. That delivery does not call `onChange`: the reconcile that
 * wrote the object assessed it already.
 */
import type { Logger } from 'pino';
import { describeError } from '../../core/errors.ts';
import { ownedBy } from '../../engine/drift.ts';
import type { LiveReader } from '../../engine/health/assess.ts';
import { type LiveObject, resourceHealth } from '../../engine/health/index.ts';
import { type AppKey, MANAGED_LABEL, ownerOf } from '../../engine/labels.ts';
import {
  type AnyObject,
  apiPrefix,
  cacheKey,
  compareVersions,
  Informer,
  KubeApiError,
  MutationCache,
  type ObjectClient,
  type ObjectRef,
} from '../../kube/index.ts';
import { slim } from './slim.ts';

/** How long an object this process wrote may be preferred over the cache at most (the watch lags by ms). */
const WRITTEN_TTL_MS = 60_000;
/** A kind that could not be watched (not served yet, no watch verb, watch failing with 404) is retried after this. */
const RETRY_UNWATCHABLE_MS = 30_000;

/** Options of a DestinationCache. */
export interface DestinationCacheOptions {
  /** The destination's key (empty for the management cluster), for logs. */
  name: string;
  client: ObjectClient;
  /** Called with the owning App when a managed object's health status or owner changed, or it was deleted. */
  onChange: (app: AppKey) => void;
  /**
   * True when a custom health check (CEL, evaluated only by the reconcile) applies to objects of this kind owned by
   * `app`: then any change of their status or generation re-queues the App, since the cache cannot tell its health.
   */
  customChecked?: (app: AppKey, apiVersion: string, kind: string) => boolean;
  logger: Logger;
}

interface KindWatch {
  apiVersion: string;
  kind: string;
  informer?: Informer<AnyObject>;
  /** Set when the kind cannot be watched (for now); reads fall back to GET. */
  failedAt?: number;
}

/** `apiVersion/Kind` + `namespace/name`: one object of one watched kind. */
const idOf = (apiVersion: string, kind: string, key: string): string => `${apiVersion}/${kind} ${key}`;
const refKey = (ref: ObjectRef): string => `${ref.namespace ?? ''}/${ref.name}`;
const appKeyOf = (app: AppKey): string => `${app.namespace}/${app.name}`;

/** True when `a` is a newer version than `b` (false when the versions are not comparable). */
const isNewer = (a: AnyObject, b: AnyObject): boolean =>
  compareVersions(a.metadata.resourceVersion, b.metadata.resourceVersion) === 1;

/** The live objects managed by svc on one destination cluster. */
export class DestinationCache implements LiveReader {
  readonly client: ObjectClient;
  readonly #options: DestinationCacheOptions;
  readonly #kinds = new Map<string, KindWatch>();
  /** What this process applied, by object id, until the watch delivers it (src/kube's MutationCache). */
  readonly #written = new MutationCache<AnyObject>({ ttlMs: WRITTEN_TTL_MS, includeAdds: true });
  /** App (`namespace/name`) → ids of the objects its labels claim. */
  readonly #byApp = new Map<string, Set<string>>();
  #stopped = false;
  /**
   * Namespaces this process has seen exist or created here: a sync into one of them skips the existence check
   * (a GET per sync). An apply that fails there checks again (the namespace may have been deleted since).
   */
  readonly knownNamespaces = new Set<string>();

  constructor(options: DestinationCacheOptions) {
    this.#options = options;
    this.client = options.client;
  }

  /**
   * The object as it is now: from the cache once its kind is synced (undefined = it does not exist, or no longer
   * carries the managed label), otherwise by a GET. Starts watching the kind on first use. Callers must not
   * modify the returned object.
   */
  async get(ref: ObjectRef): Promise<AnyObject | undefined> {
    const watch = this.#watch(ref.apiVersion, ref.kind);
    const id = idOf(ref.apiVersion, ref.kind, refKey(ref));
    if (watch?.failedAt === undefined && watch?.informer?.synced)
      return this.#written.newest(id, watch.informer.get(refKey(ref)));
    const written = this.#written.written(id);
    if (written) return written;
    const live = await this.client.get(ref);
    return live && slim(live, ref.apiVersion, ref.kind);
  }

  /** The cached object without any request: undefined when absent or when its kind is not synced (yet). */
  cached(ref: ObjectRef): AnyObject | undefined {
    const watch = this.#kinds.get(`${ref.apiVersion}/${ref.kind}`);
    if (watch?.failedAt !== undefined || !watch?.informer?.synced) return undefined;
    return this.#written.newest(idOf(ref.apiVersion, ref.kind, refKey(ref)), watch.informer.get(refKey(ref)));
  }

  /** Every live object whose labels name `app`, over the kinds watched so far (for the resource tree, selfHeal). */
  objectsOf(app: AppKey): AnyObject[] {
    const ids = this.#byApp.get(appKeyOf(app));
    const out: AnyObject[] = [];
    for (const id of ids ?? []) {
      const obj = this.#lookup(id);
      if (obj) out.push(obj);
      else ids?.delete(id);
    }
    return out;
  }

  /**
   * Records objects this process just wrote (server-side apply answers), so reads prefer them over an older
   * cached copy until the watch delivers them. Starts watching their kinds.
   */
  remember(objects: readonly AnyObject[]): void {
    for (const o of objects) {
      const watch = this.#watch(o.apiVersion, o.kind);
      if (!watch || watch.failedAt !== undefined) continue;
      const id = idOf(o.apiVersion, o.kind, cacheKey(o));
      const cached = watch.informer?.get(cacheKey(o));
      if (cached && !isNewer(o, cached)) continue;
      const obj = slim(o, o.apiVersion, o.kind);
      this.#reindex(id, [this.#written.written(id), cached], obj);
      this.#written.wrote(obj, id);
    }
  }

  /** Stops every watch. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all([...this.#kinds.values()].map((w) => w.informer?.stop()));
    this.#kinds.clear();
  }

  #lookup(id: string): AnyObject | undefined {
    const space = id.indexOf(' ');
    const watch = this.#kinds.get(id.slice(0, space));
    const cached = watch?.failedAt === undefined ? watch?.informer?.get(id.slice(space + 1)) : undefined;
    return this.#written.newest(id, cached);
  }

  /** The watch of a kind, started on first need; undefined once stopped. */
  #watch(apiVersion: string, kind: string): KindWatch | undefined {
    if (this.#stopped) return undefined;
    const key = `${apiVersion}/${kind}`;
    let watch = this.#kinds.get(key);
    if (watch?.failedAt !== undefined && Date.now() - watch.failedAt > RETRY_UNWATCHABLE_MS) {
      this.#kinds.delete(key);
      watch = undefined;
    }
    if (!watch) {
      watch = { apiVersion, kind };
      this.#kinds.set(key, watch);
      void this.#start(watch);
    }
    return watch;
  }

  async #start(watch: KindWatch): Promise<void> {
    const { apiVersion, kind } = watch;
    try {
      const info = await this.client.discovery.lookup(apiVersion, kind);
      if (!info?.verbs.includes('list') || !info.verbs.includes('watch')) {
        watch.failedAt = Date.now();
        return;
      }
      if (this.#stopped) return;
      const informer = new Informer<AnyObject>(
        this.client.client,
        `${apiPrefix(apiVersion)}/${info.plural}`,
        {
          onUpsert: (obj, old) => this.#upserted(watch, obj, old),
          onDelete: (obj) => this.#deleted(watch, obj),
          onError: (err) => this.#failed(watch, err),
        },
        { labelSelector: MANAGED_LABEL, transform: (o) => slim(o, apiVersion, kind) },
      );
      watch.informer = informer;
      await informer.start();
    } catch (err) {
      // Discovery failed: reads fall back to GET, and the watch is tried again on a need after the pause.
      watch.failedAt = Date.now();
      this.#log(watch, err);
    }
  }

  /** A failing watch: the informer retries by itself, except when the kind is gone or not ours to watch. */
  #failed(watch: KindWatch, err: unknown): void {
    if (err instanceof KubeApiError && (err.status === 404 || err.status === 403)) {
      // The kind is no longer served (its CRD was deleted) or may not be watched: stop, fall back to GET, and
      // look the kind up afresh on a need after the pause.
      watch.failedAt = Date.now();
      this.client.discovery.invalidate(watch.apiVersion);
      void watch.informer?.stop();
    }
    this.#log(watch, err);
  }

  #log(watch: KindWatch, err: unknown): void {
    this.#options.logger.warn(
      { destination: this.#options.name, kind: `${watch.apiVersion}/${watch.kind}`, err: describeError(err) },
      'live cache watch failed',
    );
  }

  #upserted(watch: KindWatch, obj: AnyObject, old: AnyObject | undefined): void {
    const id = idOf(watch.apiVersion, watch.kind, cacheKey(obj));
    const { written, order } = this.#written.delivered(obj, id);
    this.#reindex(id, [old, written], obj);
    // What the App last saw: our own write when it is newer than the cached copy.
    let seen = old;
    if (written) {
      // The watch delivers our own write (the reconcile that made it already assessed it), or an event older than
      // our write, which changes nothing the App saw (our write stays preferred).
      if (order === 0 || order === -1) return;
      if (order === 1 && (!old || isNewer(written, old))) seen = written;
    }
    if (this.#matters(watch, seen, obj)) this.#notify(seen, obj);
  }

  #deleted(watch: KindWatch, obj: AnyObject): void {
    const id = idOf(watch.apiVersion, watch.kind, cacheKey(obj));
    const written = this.#written.written(id);
    this.#written.forget(id);
    this.#reindex(id, [obj, written], undefined);
    this.#notify(obj, written);
  }

  /**
   * True when the change can alter the owning App's status: its health status, which App owns it, or which fields
   * svc owns (another writer took or removed one: drift, src/engine/drift.ts).
   */
  #matters(watch: KindWatch, before: AnyObject | undefined, after: AnyObject): boolean {
    const a = ownerOf(after);
    const b = before ? ownerOf(before) : undefined;
    if (a?.name !== b?.name || a?.namespace !== b?.namespace) return true;
    if (before && JSON.stringify(ownedBy(before)) !== JSON.stringify(ownedBy(after))) return true;
    if (a && this.#options.customChecked?.(a, watch.apiVersion, watch.kind)) {
      const gen = (o: AnyObject | undefined) => o?.metadata.generation;
      return gen(before) !== gen(after) || JSON.stringify(before?.['status']) !== JSON.stringify(after['status']);
    }
    const ref = { apiVersion: watch.apiVersion, kind: watch.kind, name: after.metadata.name };
    return (
      resourceHealth(ref, before as LiveObject | undefined).status !== resourceHealth(ref, after as LiveObject).status
    );
  }

  #notify(...objects: (AnyObject | undefined)[]): void {
    const apps = new Map<string, AppKey>();
    for (const o of objects) {
      const owner = o && ownerOf(o);
      if (owner) apps.set(appKeyOf(owner), owner);
    }
    for (const app of apps.values()) this.#options.onChange(app);
  }

  /** Moves `id` in the App index from the owners of `before` to the owner of `after`. */
  #reindex(id: string, before: (AnyObject | undefined)[], after: AnyObject | undefined): void {
    for (const o of before) {
      const owner = o && ownerOf(o);
      const ids = owner && this.#byApp.get(appKeyOf(owner));
      if (!ids) continue;
      ids.delete(id);
      if (ids.size === 0) this.#byApp.delete(appKeyOf(owner));
    }
    const owner = after && ownerOf(after);
    if (!owner) return;
    const key = appKeyOf(owner);
    let ids = this.#byApp.get(key);
    if (!ids) {
      ids = new Set();
      this.#byApp.set(key, ids);
    }
    ids.add(id);
  }
}
