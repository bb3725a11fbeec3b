/**
 * App resources on the management cluster, in the org namespaces `org-<slug>`: read, create, merge-patch (with
 * optimistic concurrency), delete, watch one App, and read Kubernetes events. Kubernetes API errors become svc's
 * typed errors here, so routes never see an ApiException.
 */
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  type CoreV1Event,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from '@kubernetes/client-node';
import { APP_GROUP, APP_KIND, APP_PLURAL, APP_VERSION, type AppResource } from '../../core/app-schema.ts';
import { ConflictError, NotFoundError, SvcError, UnavailableError, UpstreamError } from '../../core/errors.ts';
import type { Logger } from '../../log.ts';
import { appView } from '../apps/view.ts';
import { appJson } from '../apps/view-json.ts';
import { AppCache } from './app-cache.ts';
import type { AppEntry } from './app-store.ts';

const APP = { group: APP_GROUP, version: APP_VERSION, plural: APP_PLURAL };

function reasonOf(err: ApiException<unknown>): string {
  try {
    const body = (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) as { message?: unknown } | null;
    return typeof body?.message === 'string' ? body.message : '';
  } catch {
    return '';
  }
}

/** Maps a failed Kubernetes call to a typed error: 404 NotFound, 409 Conflict, connection failures Unavailable. */
export function kubeError(err: unknown, what: string): SvcError {
  if (err instanceof SvcError) return err;
  if (err instanceof ApiException) {
    const reason = reasonOf(err);
    if (err.code === 404) return new NotFoundError(`${what} not found`, { cause: err });
    if (err.code === 409) return new ConflictError(`${what}: ${reason || 'conflict'}`, { cause: err });
    return new UpstreamError(`${what}: management cluster answered ${err.code} ${reason}`.trim(), { cause: err });
  }
  return new UnavailableError(`${what}: management cluster unreachable`, { cause: err });
}

/** A workload (Deployment or StatefulSet) as the adopt routes see it. */
export interface Workload {
  kind: 'Deployment' | 'StatefulSet';
  name: string;
  namespace: string;
  labels: Record<string, string>;
  selector: Record<string, string>;
  replicas: number;
  containers: Array<{ name: string; image: string; port?: number }>;
}

interface WorkloadLike {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: {
    replicas?: number;
    selector: { matchLabels?: Record<string, string> };
    template: {
      spec?: { containers: Array<{ name: string; image?: string; ports?: Array<{ containerPort: number }> }> };
    };
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
  };
}

/** A write carrying a resourceVersion lost to a concurrent change of the App (409; re-read and retry). */
export class StaleVersionError extends ConflictError {}

/**
 * Access to Apps, namespaces, events and workloads on the management cluster. With a logger, an App cache
 * (./app-cache.ts) is kept from `start()` on: `listEntries` answers from it once synced, and every App this class
 * writes or reads from the apiserver is applied to it (ordered by resourceVersion), so a caller's own writes show in
 * its next list. `get` always asks the apiserver.
 */
export class KubeApps {
  readonly #kc: KubeConfig;
  readonly #custom: CustomObjectsApi;
  readonly #core: CoreV1Api;
  readonly #apps: AppsV1Api;
  readonly #cache: AppCache | undefined;

  constructor(kc: KubeConfig, options: { cache?: { logger: Logger } } = {}) {
    this.#kc = kc;
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#apps = kc.makeApiClient(AppsV1Api);
    this.#cache = options.cache ? new AppCache(kc, this.#custom, options.cache.logger) : undefined;
  }

  /** True once the App cache has its first list (always false without a cache). */
  get synced(): boolean {
    return this.#cache?.synced ?? false;
  }

  /** Starts the App cache's list and watch in the background (no-op without a cache). */
  start(): void {
    this.#cache?.start();
  }

  /** Stops the App cache's watch. */
  async stop(): Promise<void> {
    await this.#cache?.stop();
  }

  /** Every App in the org namespace from the apiserver (none when the namespace does not exist yet). */
  async list(namespace: string): Promise<AppResource[]> {
    try {
      const list = (await this.#custom.listNamespacedCustomObject({ ...APP, namespace })) as { items: AppResource[] };
      return list.items;
    } catch (err) {
      throw kubeError(err, 'list apps');
    }
  }

  /**
   * Every App in the org namespace with its API view, sorted by name (localeCompare, ties by code units): from the
   * App cache once it has synced, else from the apiserver. The entries are shared: do not mutate them.
   */
  async listEntries(namespace: string): Promise<readonly AppEntry[]> {
    const cache = this.#cache;
    if (cache?.synced) return cache.store.list(namespace);
    const items = await this.list(namespace);
    for (const app of items) cache?.store.apply(app);
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

  /** The App from the apiserver, or undefined when absent. */
  async get(namespace: string, name: string): Promise<AppResource | undefined> {
    try {
      const app = (await this.#custom.getNamespacedCustomObject({ ...APP, namespace, name })) as AppResource;
      this.#cache?.store.apply(app);
      return app;
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return undefined;
      throw kubeError(err, `app ${name}`);
    }
  }

  /** Creates the App; ConflictError when the name is taken. Creates the org namespace first if it is missing. */
  async create(namespace: string, app: AppResource): Promise<AppResource> {
    await this.ensureNamespace(namespace);
    try {
      const created = (await this.#custom.createNamespacedCustomObject({
        ...APP,
        namespace,
        body: app,
      })) as AppResource;
      this.#cache?.store.apply(created);
      return created;
    } catch (err) {
      if (err instanceof ApiException && err.code === 409) {
        throw new ConflictError(`app ${app.metadata.name} already exists`, { cause: err });
      }
      throw kubeError(err, `create app ${app.metadata.name}`);
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
      const patched = (await this.#custom.patchNamespacedCustomObject(
        { ...APP, namespace, name, body },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )) as AppResource;
      this.#cache?.store.apply(patched);
      return patched;
    } catch (err) {
      if (err instanceof ApiException && err.code === 409) {
        throw new StaleVersionError(`app ${name} changed concurrently; retry`, { cause: err });
      }
      throw kubeError(err, `app ${name}`);
    }
  }

  /** Deletes the App (NotFoundError when absent). */
  async delete(namespace: string, name: string): Promise<void> {
    try {
      const answer = (await this.#custom.deleteNamespacedCustomObject({ ...APP, namespace, name })) as unknown;
      this.#forgetDeleted(namespace, name, answer);
    } catch (err) {
      throw kubeError(err, `app ${name}`);
    }
  }

  /**
   * Brings the cache in line with a delete's answer: an App still held by finalizers is stored with its deletion
   * timestamp; one already gone (no finalizers, or a bare Status answer) is removed.
   */
  #forgetDeleted(namespace: string, name: string, answer: unknown): void {
    const store = this.#cache?.store;
    if (!store) return;
    const app = answer as Partial<AppResource> | undefined;
    if (app?.kind === APP_KIND && app.metadata && app.spec) {
      const full = app as AppResource;
      if ((full.metadata.finalizers ?? []).length > 0) store.apply(full);
      else store.remove(full);
    } else {
      store.remove({ metadata: { name, namespace } } as AppResource);
    }
  }

  /** Creates the namespace unless it exists. */
  async ensureNamespace(name: string): Promise<void> {
    try {
      await this.#core.createNamespace({ body: { metadata: { name } } });
    } catch (err) {
      if (err instanceof ApiException && err.code === 409) return;
      throw kubeError(err, `namespace ${name}`);
    }
  }

  /**
   * Watches one App until `done` holds for a version of it, the App is deleted, or `signal` aborts; no polling.
   * Checks the current object first, then follows a watch from its resourceVersion (re-reading and re-watching
   * when the server ends the watch). Resolves with the last version seen (undefined once deleted).
   */
  async watchUntil(
    namespace: string,
    name: string,
    done: (app: AppResource) => boolean,
    signal: AbortSignal,
  ): Promise<AppResource | undefined> {
    let last = await this.get(namespace, name);
    const path = `/apis/${APP_GROUP}/${APP_VERSION}/namespaces/${namespace}/${APP_PLURAL}`;
    while (last && !done(last) && !signal.aborted) {
      const from: AppResource = last;
      const ended = await new Promise<'finished' | 'restart'>((resolve) => {
        let controller: AbortController | undefined;
        let settled = false;
        const settle = (how: 'finished' | 'restart') => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          controller?.abort();
          resolve(how);
        };
        const onAbort = () => settle('finished');
        signal.addEventListener('abort', onAbort, { once: true });
        new Watch(this.#kc)
          .watch(
            path,
            { fieldSelector: `metadata.name=${name}`, resourceVersion: from.metadata.resourceVersion ?? '' },
            (type, obj: AppResource) => {
              if (type === 'DELETED') {
                last = undefined;
                settle('finished');
              } else if (type === 'ADDED' || type === 'MODIFIED') {
                last = obj;
                if (done(obj)) settle('finished');
              }
            },
            () => settle('restart'),
          )
          .then(
            (c) => {
              controller = c;
              if (settled) c.abort();
            },
            () => settle('restart'),
          );
      });
      if (ended === 'restart' && !signal.aborted) {
        // Give a failing apiserver a breath before re-reading, so a broken watch cannot spin.
        await new Promise((r) => setTimeout(r, 500));
        last = await this.get(namespace, name);
      }
    }
    return last;
  }

  /** Events in `namespace` (optionally filtered); none when the namespace does not exist. */
  async events(namespace: string, filter?: (e: CoreV1Event) => boolean): Promise<CoreV1Event[]> {
    try {
      const list = await this.#core.listNamespacedEvent({ namespace });
      return filter ? list.items.filter(filter) : list.items;
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return [];
      throw kubeError(err, `events in ${namespace}`);
    }
  }

  /** Deployments and StatefulSets in a namespace of the management cluster. */
  async workloads(namespace: string): Promise<Workload[]> {
    try {
      const [deployments, statefulSets] = await Promise.all([
        this.#apps.listNamespacedDeployment({ namespace }),
        this.#apps.listNamespacedStatefulSet({ namespace }),
      ]);
      return [
        ...deployments.items.map((d) => toWorkload('Deployment', namespace, d as WorkloadLike)),
        ...statefulSets.items.map((s) => toWorkload('StatefulSet', namespace, s as WorkloadLike)),
      ];
    } catch (err) {
      throw kubeError(err, `workloads in ${namespace}`);
    }
  }
}
