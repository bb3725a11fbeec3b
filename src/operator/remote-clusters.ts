/**
 * The operator's connections to registered clusters (contract §3 rule 8; docs/operator.md "Remote destinations").
 * The operator holds no credentials: it asks the server for a cluster's connection details through the internal
 * channel, connects through the one client factory (src/clusters/access.ts: untrusted kubeconfig, outbound address
 * policy), and keeps one connection per cluster — per org namespace and name, since names are unique per org only.
 *
 * Refresh: a cached connection is revalidated at most every `revalidateMs`: the server is asked whether the record
 * changed (a conditional request carrying the revision it was built from, answered "unchanged" without any
 * credential) and the cluster whether it answers (GET /version). When the record changed (PATCH: rotated
 * credentials, a new server URL or allowlist), a new connection replaces the old one; the live cache then starts a
 * fresh watch cache for it. A cluster that does not answer is ClusterUnreachableError for every App deploying there
 * until the next check, so an outage costs one request per cluster and period, not one per App, and is reported
 * even by reconciles that would only have read the (stale) watch cache.
 */
import type { Logger } from 'pino';
import { type AccessOptions, connectCluster } from '../clusters/access.ts';
import { clusterVersion } from '../clusters/probe.ts';
import { describeError, ForbiddenError, UnavailableError } from '../core/errors.ts';
import type { RemoteClusterAccess, ServerChannel } from '../internal/channel.ts';
import { KubeApiError, type ObjectClient } from '../kube/index.ts';

/** Default: revalidate a cluster's record and reachability at most this often. */
export const REVALIDATE_MS = 5_000;
/** How long the reachability check may wait for an answer. */
const PING_TIMEOUT_MS = 5_000;

/** A registered cluster that did not answer (the SyncError reason ClusterUnreachable); transient. */
export class ClusterUnreachableError extends UnavailableError {}

/** A cluster connection and the record it was built from. */
export interface RemoteTarget {
  objects: ObjectClient;
  access: RemoteClusterAccess;
}

interface Entry {
  target: RemoteTarget;
  checkedAt: number;
  /** Set when the last check found the cluster not answering. */
  failure?: ClusterUnreachableError;
}

export interface RemoteClustersOptions extends AccessOptions {
  channel: ServerChannel;
  logger: Logger;
  revalidateMs?: number;
  now?: () => number;
}

/** The connections of every remote destination, keyed `<org namespace>/<cluster>`. */
export class RemoteClusters {
  readonly #options: RemoteClustersOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Map<string, Promise<RemoteTarget>>();

  constructor(options: RemoteClustersOptions) {
    this.#options = options;
  }

  /**
   * The connection to cluster `name` of the org owning `orgNamespace`, current within `revalidateMs`. Throws the
   * channel's errors (NotFoundError: not registered; UpstreamError: the server cannot be reached) and InputError for
   * settings that cannot be used.
   */
  async targetOf(orgNamespace: string, name: string): Promise<RemoteTarget> {
    const key = `${orgNamespace}/${name}`;
    const entry = this.#entries.get(key);
    const now = this.#now();
    if (entry && now - entry.checkedAt < (this.#options.revalidateMs ?? REVALIDATE_MS)) {
      if (entry.failure) throw entry.failure;
      return entry.target;
    }
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#refresh(key, orgNamespace, name, entry).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /**
   * The object client for an App's destination: checks the namespace against the cluster's allowlist (the API's
   * create rule, enforced again here for Apps written directly), ForbiddenError outside it (hint `wait`: a widened
   * allowlist is picked up without a spec change).
   */
  async objectsFor(orgNamespace: string, name: string, namespace: string): Promise<ObjectClient> {
    const { objects, access } = await this.targetOf(orgNamespace, name);
    if (access.namespaces.length > 0 && !access.namespaces.includes(namespace)) {
      throw new ForbiddenError(`namespace "${namespace}" is outside the allowlist of cluster "${name}"`, {
        retry: 'wait',
      });
    }
    return objects;
  }

  /** Revalidate `orgNamespace/name` on its next use (the cluster did not answer, or refused the credentials). */
  invalidate(orgNamespace: string, name: string): void {
    const entry = this.#entries.get(`${orgNamespace}/${name}`);
    if (entry) entry.checkedAt = Number.NEGATIVE_INFINITY;
  }

  /** Closes every connection. */
  async stop(): Promise<void> {
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(all.map((e) => e.target.objects.client.dropConnections()));
  }

  async #refresh(key: string, orgNamespace: string, name: string, previous: Entry | undefined): Promise<RemoteTarget> {
    const answer = await this.#options.channel.clusterAccess(orgNamespace, name, previous?.target.access.revision);
    let entry = previous;
    if (answer.changed) {
      const c = answer.cluster;
      const { objects } = connectCluster(
        { name, serverURL: c.serverURL, ...(c.kubeconfig !== undefined ? { kubeconfig: c.kubeconfig } : {}) },
        this.#options,
      );
      entry = { target: { objects, access: c }, checkedAt: 0 };
      this.#entries.set(key, entry);
      if (previous)
        this.#options.logger.info({ cluster: key, revision: c.revision }, 'cluster record changed: reconnecting');
    }
    if (!entry) throw new Error(`the server answered "unchanged" for cluster ${key} without a revision`);
    entry.checkedAt = this.#now();
    try {
      await clusterVersion(entry.target.objects.client, PING_TIMEOUT_MS);
      delete entry.failure;
    } catch (err) {
      // Only silence counts as unreachable; an answer (even 401) is the stages' to report.
      if (!(err instanceof KubeApiError && err.status === 0)) return entry.target;
      entry.failure = new ClusterUnreachableError(`cluster "${name}" cannot be reached: ${describeError(err)}`, {
        cause: err,
      });
      throw entry.failure;
    }
    return entry.target;
  }

  #now(): number {
    return this.#options.now ? this.#options.now() : Date.now();
  }
}
