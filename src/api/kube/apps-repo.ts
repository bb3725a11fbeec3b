/**
 * App resources on the management cluster, in the org namespaces `org-<slug>`: read, create, merge-patch (with
 * optimistic concurrency), delete, wait for a state of one App, and read Kubernetes events and workloads. Built on
 * src/kube's client; failures become svc's typed errors through src/kube's `toSvcError`, so routes never see a
 * KubeApiError.
 */
import { APP_GROUP, APP_KIND, APP_PLURAL, APP_VERSION, type AppResource } from '../../core/app-schema.ts';
import { ConflictError } from '../../core/errors.ts';
import {
  type AnyObject,
  cacheKey,
  createUnlessExists,
  Discovery,
  ensureNamespace,
  Informer,
  type InformerEvent,
  isConflict,
  isNotFound,
  type KubeClient,
  type KubeEvent,
  listEvents,
  ObjectClient,
  toSvcError,
  withoutManagedFields,
} from '../../kube/index.ts';
import type { Logger } from '../../log.ts';
import { appView } from '../apps/view.ts';
import { appJson } from '../apps/view-json.ts';
import { type AppEntry, AppStore } from './app-store.ts';
import { type OrgOperatorAccess, orgOperatorBinding } from './org-access.ts';

/** Path of the Apps of one namespace, or of every namespace. */
const appsPath = (namespace?: string) =>
  `/apis/${APP_GROUP}/${APP_VERSION}${namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`}/${APP_PLURAL}`;
const appPath = (namespace: string, name: string) => `${appsPath(namespace)}/${encodeURIComponent(name)}`;

/** A workload (Deployment or StatefulSet) as the adopt routes see it. */
export interface Workload {
  kind: 'Deployment' | 'StatefulSet';
  name: string;
  namespace: string;
  labels: Record<string, string>;
  selector: Record<string, string>;
  replicas: number;
  containers: Array<{ name: string; image: string; port?: number }>;
  /** The pod template's spec as stored (adoption reads its container settings). */
  pod: PodSpecLike;
}

/** A container of a pod template, as much of it as adoption reads. */
export interface ContainerLike {
  name: string;
  image?: string;
  ports?: Array<{ containerPort: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  resources?: {
    requests?: { cpu?: string; memory?: string };
    limits?: { cpu?: string; memory?: string };
  };
  readinessProbe?: {
    httpGet?: { path?: string };
    tcpSocket?: unknown;
    initialDelaySeconds?: number;
    periodSeconds?: number;
    failureThreshold?: number;
  };
}

/** A pod template's spec, as much of it as adoption reads. */
export interface PodSpecLike {
  containers: ContainerLike[];
  imagePullSecrets?: Array<{ name: string }>;
}

interface WorkloadLike {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: {
    replicas?: number;
    selector: { matchLabels?: Record<string, string> };
    template: { spec?: PodSpecLike };
  };
}

function toWorkload(kind: Workload['kind'], namespace: string, o: WorkloadLike): Workload {
  return {
    kind,
    name: o.metadata?.name ?? '',
    namespace,
    labels: o.metadata?.labels ?? {},
    selector: o.spec?.selector.matchLabels ?? {},
    replicas: o.spec?.replicas ?? 1,
    containers: (o.spec?.template.spec?.containers ?? []).map((c) => {
      const port = c.ports?.[0]?.containerPort;
      return port === undefined ? { name: c.name, image: c.image ?? '' } : { name: c.name, image: c.image ?? '', port };
    }),
    pod: o.spec?.template.spec ?? { containers: [] },
  };
}

/** A write carrying a resourceVersion lost to a concurrent change of the App (409; re-read and retry). */
export class StaleVersionError extends ConflictError {}

/**
 * Access to Apps, namespaces, events and workloads on the management cluster. With a logger, an App cache is kept
 * from `start()` on: an Informer (src/kube) on Apps in every namespace whose store is an AppStore (./app-store.ts).
 * `listEntries` answers from it once synced, and every App this class writes or reads from the apiserver is offered
 * to it (ordered by resourceVersion), so a caller's own writes show in its next list; `watchUntil` follows its
 * change events. `get` always asks the apiserver.
 */
export class KubeApps {
  readonly #client: KubeClient;
  readonly #objects: ObjectClient;
  readonly #store: AppStore | undefined;
  readonly #informer: Informer<AppResource> | undefined;
  readonly #logger: Logger | undefined;
  readonly #orgOperatorAccess: OrgOperatorAccess | undefined;
  #started: Promise<void> | undefined;

  /**
   * `orgOperatorAccess`: bind the operator's org ClusterRole in every org namespace this class ensures (the
   * chart's least-privilege install; ./org-access.ts).
   */
  constructor(client: KubeClient, options: { cache?: { logger: Logger }; orgOperatorAccess?: OrgOperatorAccess } = {}) {
    this.#client = client;
    this.#objects = new ObjectClient(client, new Discovery(client));
    this.#orgOperatorAccess = options.orgOperatorAccess;
    const cache = options.cache;
    this.#logger = cache?.logger;
    if (cache) {
      const store = new AppStore();
      this.#store = store;
      this.#informer = new Informer<AppResource>(
        client,
        appsPath(),
        {
          onError: (err) => cache.logger.warn({ err }, 'app cache: list or watch of App resources failed; retrying'),
        },
        // Nothing the API answers reads field ownership: the cache keeps Apps without it (issue 29: the API's RSS).
        { store, transform: withoutManagedFields },
      );
    }
  }

  /** True once the App cache has its first full list (false without a cache). */
  get synced(): boolean {
    return this.#informer?.synced ?? false;
  }

  /** Starts the App cache's list and watch in the background (no-op without a cache); never rejects. */
  start(): void {
    const informer = this.#informer;
    this.#started ??= informer?.start().then(
      () => this.#logger?.info({ apps: informer.list().length }, 'app cache synced'),
      (err: unknown) => this.#logger?.error({ err }, 'app cache stopped'),
    );
  }

  /** Stops the App cache's watch. */
  async stop(): Promise<void> {
    await this.#informer?.stop();
  }

  /**
   * Calls `listener` with every App the cache sees change (`deleted` false) or go (true), until the returned
   * function is called. Nothing is ever called without a cache.
   */
  onChange(listener: (app: AppResource, deleted: boolean) => void): () => void {
    return this.subscribe((event) => listener(event.obj, event.type === 'delete'));
  }

  /** Every App in the cache, across namespaces (none before it synced, or without a cache). */
  cachedApps(): AppResource[] {
    return this.#informer?.list() ?? [];
  }

  /** One App from the cache (undefined when absent or without a cache). */
  cached(namespace: string, name: string): AppResource | undefined {
    return this.#informer?.get(cacheKey({ metadata: { name, namespace } }));
  }

  /**
   * The newest resourceVersion the App cache has seen: a list from the cache reflects every App change up to it,
   * so an event stream resumed from it misses nothing. Undefined before the cache has seen anything.
   */
  get version(): string | undefined {
    return this.#store?.version;
  }

  /**
   * Calls `listener` with every change of the App cache (all namespaces) until the returned function is called:
   * the one subscription the event stream fans out from. Without a cache nothing is ever told.
   */
  subscribe(listener: (event: InformerEvent<AppResource>) => void): () => void {
    return this.#informer?.subscribe(listener) ?? (() => {});
  }

  /**
   * The cache's entry (view and JSON computed once) for exactly this version of an App, or a fresh one when the
   * cache holds another version (a deletion, a change already superseded).
   */
  entryOf(app: AppResource): AppEntry {
    const held = this.#store?.entry(app.metadata.namespace ?? '', app.metadata.name);
    if (held && held.app.metadata.resourceVersion === app.metadata.resourceVersion) return held;
    const view = appView(app);
    return { app, view, json: appJson(view) };
  }

  /** Every App in the org namespace from the apiserver (none when the namespace does not exist yet). */
  async list(namespace: string): Promise<AppResource[]> {
    try {
      return (await this.#client.request<{ items: AppResource[] }>(appsPath(namespace))).items;
    } catch (err) {
      throw toSvcError(err, 'list apps');
    }
  }

  /**
   * Every App in the org namespace with its API view, sorted by name (localeCompare, ties by code units): from the
   * App cache once it has synced, else from the apiserver. The entries are shared: do not mutate them.
   */
  async listEntries(namespace: string): Promise<readonly AppEntry[]> {
    if (this.#store && this.#informer?.synced) return this.#store.list(namespace);
    const items = await this.list(namespace);
    for (const app of items) this.#informer?.observe(app);
    return items
      .map((app) => {
        const view = appView(app);
        return { app, view, json: appJson(view) };
      })
      .sort((a, b) => {
        const x = a.app.metadata.name;
        const y = b.app.metadata.name;
        return x.localeCompare(y) || (x < y ? -1 : x > y ? 1 : 0);
      });
  }

  /**
   * Every App in every namespace: from the App cache once it has synced, else from the apiserver. Shared objects:
   * do not mutate them.
   */
  async all(): Promise<readonly AppResource[]> {
    if (this.#store && this.#informer?.synced) return [...this.#store.values()];
    try {
      return (await this.#client.request<{ items: AppResource[] }>(appsPath())).items;
    } catch (err) {
      throw toSvcError(err, 'list apps');
    }
  }

  /** The App from the apiserver, or undefined when absent. */
  async get(namespace: string, name: string): Promise<AppResource | undefined> {
    try {
      const app = await this.#client.request<AppResource>(appPath(namespace, name));
      this.#informer?.observe(app);
      return app;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw toSvcError(err, `app ${name}`);
    }
  }

  /** Creates the App; ConflictError when the name is taken. Creates the org namespace first if it is missing. */
  async create(namespace: string, app: AppResource): Promise<AppResource> {
    await this.ensureNamespace(namespace);
    try {
      const created = await this.#client.request<AppResource>(appsPath(namespace), { method: 'POST', body: app });
      this.#informer?.observe(created);
      return created;
    } catch (err) {
      if (isConflict(err)) throw new ConflictError(`app ${app.metadata.name} already exists`, { cause: err });
      throw toSvcError(err, `create app ${app.metadata.name}`);
    }
  }

  /**
   * JSON merge-patches the App. With `resourceVersion` the patch applies only to that version (ConflictError when
   * the App changed in between), which makes read-check-write sequences safe against concurrent writers.
   */
  async mergePatch(
    namespace: string,
    name: string,
    patch: Record<string, unknown>,
    resourceVersion?: string,
  ): Promise<AppResource> {
    const body = resourceVersion
      ? { ...patch, metadata: { ...(patch['metadata'] as object | undefined), resourceVersion } }
      : patch;
    try {
      const patched = await this.#client.request<AppResource>(appPath(namespace, name), {
        method: 'PATCH',
        body,
        contentType: 'application/merge-patch+json',
      });
      this.#informer?.observe(patched);
      return patched;
    } catch (err) {
      if (isConflict(err)) throw new StaleVersionError(`app ${name} changed concurrently; retry`, { cause: err });
      throw toSvcError(err, `app ${name}`);
    }
  }

  /** Deletes the App (NotFoundError when absent). */
  async delete(namespace: string, name: string): Promise<void> {
    let answer: unknown;
    try {
      answer = await this.#client.request(appPath(namespace, name), { method: 'DELETE' });
    } catch (err) {
      throw toSvcError(err, `app ${name}`);
    }
    this.#forgetDeleted(namespace, name, answer);
  }

  /**
   * Brings the cache in line with a delete's answer: an App still held by finalizers is stored with its deletion
   * timestamp; one already gone (no finalizers, or a bare Status answer) is removed.
   */
  #forgetDeleted(namespace: string, name: string, answer: unknown): void {
    const informer = this.#informer;
    if (!informer) return;
    const app = answer as Partial<AppResource> | undefined;
    if (app?.kind === APP_KIND && app.metadata && app.spec) {
      const full = app as AppResource;
      if ((full.metadata.finalizers ?? []).length > 0) informer.observe(full);
      else informer.observeDeleted(full);
    } else {
      informer.observeDeleted({ metadata: { name, namespace } } as AppResource);
    }
  }

  /**
   * Creates the (org) namespace unless it exists and, when configured, the RoleBinding that gives the operator its
   * org access there (kept if it exists), through src/kube's one way of creating them. Both are cheap to repeat, so
   * every App create repeats them.
   */
  async ensureNamespace(name: string): Promise<void> {
    try {
      await ensureNamespace(this.#objects, name);
    } catch (err) {
      throw toSvcError(err, `namespace ${name}`);
    }
    const access = this.#orgOperatorAccess;
    if (!access) return;
    try {
      await createUnlessExists(this.#objects, orgOperatorBinding(name, access) as unknown as AnyObject);
    } catch (err) {
      throw toSvcError(err, `the operator's RoleBinding in namespace ${name}`);
    }
  }

  /**
   * Waits until `done` holds for a version of one App, the App is deleted, or `signal` aborts; resolves with the
   * last version seen (undefined once deleted). Served from the App cache's change events: no Kubernetes watch per
   * caller. Before the cache has synced, the current version is read from the apiserver and the wait follows the
   * cache from there (its first list reports every App). Without a cache there is nothing to follow: the current
   * version is answered at once.
   */
  async watchUntil(
    namespace: string,
    name: string,
    done: (app: AppResource) => boolean,
    signal: AbortSignal,
  ): Promise<AppResource | undefined> {
    const informer = this.#informer;
    if (!informer) return this.get(namespace, name);
    const key = cacheKey({ metadata: { name, namespace } });
    let resolve: (app: AppResource | undefined) => void = () => {};
    const finished = new Promise<AppResource | undefined>((r) => {
      resolve = r;
    });
    let last: AppResource | undefined;
    // Subscribed before the current version is read, so no change in between is missed.
    const unsubscribe = informer.subscribe((event) => {
      if (event.type === 'delete') return resolve(undefined);
      last = event.obj;
      if (done(event.obj)) resolve(event.obj);
    }, key);
    const onAbort = () => resolve(last);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const current = informer.synced ? informer.get(key) : await this.get(namespace, name);
      last ??= current;
      if (!current) resolve(undefined);
      else if (done(last ?? current)) resolve(last ?? current);
      if (signal.aborted) resolve(last);
      return await finished;
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Events in `namespace` (optionally filtered); none when the namespace does not exist. */
  async events(namespace: string, filter?: (e: KubeEvent) => boolean): Promise<KubeEvent[]> {
    try {
      const items = await listEvents(this.#client, namespace);
      return filter ? items.filter(filter) : items;
    } catch (err) {
      throw toSvcError(err, `events in ${namespace}`);
    }
  }

  /** Deployments and StatefulSets in a namespace of the management cluster. */
  workloads(namespace: string): Promise<Workload[]> {
    return listWorkloads(this.#client, namespace);
  }
}

/** Deployments and StatefulSets in a namespace of the cluster `client` reaches; failures as svc's typed errors. */
export async function listWorkloads(client: KubeClient, namespace: string): Promise<Workload[]> {
  const ns = encodeURIComponent(namespace);
  try {
    const [deployments, statefulSets] = await Promise.all([
      client.request<{ items: WorkloadLike[] }>(`/apis/apps/v1/namespaces/${ns}/deployments`),
      client.request<{ items: WorkloadLike[] }>(`/apis/apps/v1/namespaces/${ns}/statefulsets`),
    ]);
    return [
      ...deployments.items.map((d) => toWorkload('Deployment', namespace, d)),
      ...statefulSets.items.map((s) => toWorkload('StatefulSet', namespace, s)),
    ];
  } catch (err) {
    throw toSvcError(err, `workloads in ${namespace}`);
  }
}
