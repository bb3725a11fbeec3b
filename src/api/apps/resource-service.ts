/**
 * The live side of an App on its destination, read on the caller's behalf (`deployment:read`): the resource tree
 * (the App's objects from status.resources and status.inventory, read live, then the ReplicaSets, Pods and Jobs
 * Kubernetes made of them; apps/tree.ts links them) and the logs of one of its Pods, streamed from the destination's
 * apiserver. A Pod that is not in the App's tree reads as 404, so logs never reach beyond the App.
 */
import type { IncomingMessage } from 'node:http';
import type { AppResource } from '../../core/app-schema.ts';
import { mapLimit } from '../../core/concurrency.ts';
import { parseDuration } from '../../core/duration.ts';
import { InputError, NotFoundError, UpstreamError } from '../../core/errors.ts';
import { refOf } from '../../engine/inventory.ts';
import { buildTree, type ManagedObject, type TreeNode } from '../../engine/tree.ts';
import { type AnyObject, KubeApiError, type KubeConnection, toSvcError } from '../../kube/index.ts';
import type { HealthCheckStore } from '../../store/health-checks.ts';
import type { Destinations } from '../kube/destinations.ts';

/** Reads in flight per tree. */
const CONCURRENCY = 8;
/** Kinds whose children (ReplicaSets, Pods, Jobs) are looked up, and which kinds those children are. */
const CHILD_KINDS: Record<string, { apiVersion: string; kind: string }[]> = {
  Deployment: [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
    { apiVersion: 'v1', kind: 'Pod' },
  ],
  StatefulSet: [{ apiVersion: 'v1', kind: 'Pod' }],
  DaemonSet: [{ apiVersion: 'v1', kind: 'Pod' }],
  ReplicaSet: [{ apiVersion: 'v1', kind: 'Pod' }],
  Job: [{ apiVersion: 'v1', kind: 'Pod' }],
  CronJob: [
    { apiVersion: 'batch/v1', kind: 'Job' },
    { apiVersion: 'v1', kind: 'Pod' },
  ],
};

/** Most log lines asked of the apiserver at once. */
export const LOG_TAIL_MAX = 5000;

/** The query of the logs route. */
export interface LogQuery {
  /** Default: the one `defaultPod` picks. */
  pod?: string | undefined;
  container?: string | undefined;
  tail?: string | undefined;
  follow?: string | undefined;
  /** A duration (`10m`, `1h`): only lines newer than that. */
  since?: string | undefined;
}

/** A Pod's log as it streams, and whose it is. */
export interface PodLog {
  stream: IncomingMessage;
  pod: string;
  container: string;
  /** How many Pods the App has (the caller may say which one it got). */
  podCount: number;
}

/** The Pod whose log is read when none is named: a Healthy one before others, then the newest. */
export function defaultPod(pods: readonly TreeNode[]): TreeNode | undefined {
  return [...pods].sort(
    (a, b) =>
      Number(b.health === 'Healthy') - Number(a.health === 'Healthy') || b.created_at.localeCompare(a.created_at),
  )[0];
}

/** The App's live resources. */
export class ResourceService {
  readonly #destinations: Destinations;
  readonly #healthChecks: HealthCheckStore;

  constructor(destinations: Destinations, healthChecks: HealthCheckStore) {
    this.#destinations = destinations;
    this.#healthChecks = healthChecks;
  }

  /** The live resource tree of the org's App `app`. */
  async tree(orgId: string, app: AppResource): Promise<{ name: string; health: string; nodes: TreeNode[] }> {
    const conn = await this.#connect(orgId, app);
    return {
      name: app.metadata.name,
      health: app.status?.healthStatus ?? 'Unknown',
      nodes: await this.#tree(app, conn, await this.#customKinds(orgId, app)),
    };
  }

  /** The App's destination's connection. */
  #connect(orgId: string, app: AppResource): Promise<KubeConnection> {
    return this.#destinations.connection(orgId, app.spec.destination.cluster ?? '');
  }

  /** `apiVersion/kind` of the kinds a custom health check (the App's or its org's) applies to. */
  async #customKinds(orgId: string, app: AppResource): Promise<Set<string>> {
    const org = await this.#healthChecks.list(orgId);
    return new Set([...org, ...(app.spec.health?.checks ?? [])].map((c) => `${c.apiVersion}/${c.kind}`));
  }

  /**
   * `customKinds`: kinds whose recorded health (the operator's CEL verdict) is shown; `refused` collects the
   * namespaces whose Pods the destination refused to list (403).
   */
  async #tree(
    app: AppResource,
    conn: KubeConnection,
    customKinds: Set<string>,
    refused?: Set<string>,
  ): Promise<TreeNode[]> {
    const status = app.status ?? {};
    const wanted = new Map<string, Omit<ManagedObject, 'live'>>();
    for (const r of status.resources ?? []) {
      const namespace = r.namespace ?? '';
      const recorded = customKinds.has(`${r.apiVersion}/${r.kind}`)
        ? { recorded: { health: r.healthStatus, message: r.message ?? '' } }
        : {};
      wanted.set(`${r.kind}/${namespace}/${r.name}`, { ...r, namespace, syncStatus: r.syncStatus, ...recorded });
    }
    for (const entry of status.inventory ?? []) {
      const r = refOf(entry);
      const key = `${r.kind}/${r.namespace ?? ''}/${r.name}`;
      // Owned but no longer rendered: pruned by the next sync (with syncPolicy.prune).
      if (!wanted.has(key)) wanted.set(key, { ...r, namespace: r.namespace ?? '', syncStatus: 'OutOfSync' });
    }
    const managed = await mapLimit([...wanted.values()], CONCURRENCY, async (m) => ({
      ...m,
      live: await this.#get(conn, m),
    }));
    return buildTree(managed, await this.#children(conn, managed, refused));
  }

  /**
   * The log of one of the App's Pods as a stream (ends when `signal` aborts, or at the end without `follow`), with
   * the Pod and container it is of. Without `query.pod`, the `defaultPod`. 404 when the Pod is not the App's (or the
   * App has none); 400 for a bad tail or since (the route's schema refuses them before).
   */
  async logs(orgId: string, app: AppResource, query: LogQuery, signal: AbortSignal): Promise<PodLog> {
    const tail = query.tail === undefined ? 200 : Number(query.tail);
    if (!Number.isInteger(tail) || tail < 1 || tail > LOG_TAIL_MAX) {
      throw new InputError(`tail must be an integer from 1 to ${LOG_TAIL_MAX}`);
    }
    const sinceMs = query.since === undefined ? undefined : parseDuration(query.since);
    if (query.since !== undefined && (sinceMs === undefined || sinceMs < 1000)) {
      throw new InputError('since must be a duration of at least 1s, such as 10m or 1h');
    }
    const conn = await this.#connect(orgId, app);
    const ref = { name: app.metadata.name };
    const refused = new Set<string>();
    const pods = (await this.#tree(app, conn, new Set(), refused)).filter(
      (n) => n.kind === 'Pod' && n.apiVersion === 'v1',
    );
    const pod = query.pod === undefined ? defaultPod(pods) : pods.find((n) => n.name === query.pod);
    const [namespace] = refused;
    if (!pod && namespace !== undefined) {
      // Not "no Pods": svc's own credentials may not list them (the chart's default, server.podReads off).
      throw new UpstreamError(
        `svc's server may not list Pods in namespace ${namespace} of the App's cluster (it answered 403), so it cannot read their logs; on Kubernetes the chart grants that with server.podReads=true`,
      );
    }
    if (!pod) {
      throw new NotFoundError(
        query.pod === undefined ? `app ${ref.name} has no Pods` : `pod ${query.pod} is not one of app ${ref.name}'s`,
      );
    }
    const containers = (pod.info['containers'] ?? []) as string[];
    if (query.container !== undefined && !containers.includes(query.container)) {
      throw new NotFoundError(`pod ${pod.name} has no container ${query.container}`);
    }
    const container = query.container ?? containers[0];
    const path = `/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/pods/${encodeURIComponent(pod.name)}/log`;
    try {
      const stream = await conn.client.stream(
        path,
        {
          container,
          tailLines: tail,
          follow: query.follow === 'true',
          timestamps: true,
          ...(sinceMs === undefined ? {} : { sinceSeconds: Math.floor(sinceMs / 1000) }),
        },
        signal,
      );
      return { stream, pod: pod.name, container: container ?? '', podCount: pods.length };
    } catch (err) {
      throw toSvcError(err, `logs of pod ${pod.name}`);
    }
  }

  async #get(conn: KubeConnection, m: Omit<ManagedObject, 'live'>): Promise<AnyObject | undefined> {
    try {
      return await conn.objects.get({
        apiVersion: m.apiVersion,
        kind: m.kind,
        name: m.name,
        ...(m.namespace ? { namespace: m.namespace } : {}),
      });
    } catch {
      // A kind the destination does not serve (any more) reads as missing, like an absent object.
      return undefined;
    }
  }

  /**
   * The ReplicaSets, Jobs and Pods of the namespaces holding the App's workloads; a list the cluster refuses reads as
   * empty (the tree shows what it may), the namespaces whose Pods were refused (403) going into `refused`.
   */
  async #children(
    conn: KubeConnection,
    managed: readonly ManagedObject[],
    refused?: Set<string>,
  ): Promise<AnyObject[]> {
    const wanted = new Map<string, { apiVersion: string; kind: string; namespace: string }>();
    for (const m of managed) {
      if (!m.live || !m.namespace) continue;
      for (const child of CHILD_KINDS[m.kind] ?? []) {
        wanted.set(`${child.kind}/${m.namespace}`, { ...child, namespace: m.namespace });
      }
    }
    const lists = await mapLimit([...wanted.values()], CONCURRENCY, (w) =>
      conn.objects.list(w.apiVersion, w.kind, '', w.namespace).catch((err: unknown) => {
        if (w.kind === 'Pod' && err instanceof KubeApiError && err.status === 403) refused?.add(w.namespace);
        return [];
      }),
    );
    return lists.flat();
  }
}
