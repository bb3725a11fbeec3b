/**
 * The server's connections to registered clusters: one per cluster, made on first use and replaced when the
 * record's revision moves (new credentials or server URL), so a rotated credential is used by the next request.
 * The sealed kubeconfig is opened here and only here on the server side.
 */
import { type AccessOptions, type ClusterAccess, connectCluster } from '../../clusters/access.ts';
import { InputError, UnavailableError } from '../../core/errors.ts';
import type { KubeConnection } from '../../kube/index.ts';
import type { Sealer } from '../../secrets/seal.ts';
import type { ClusterRecord } from '../../store/clusters.ts';
import { kubeconfigContext } from '../../store/clusters.ts';

export class ClusterConnections {
  readonly #sealer: Sealer;
  /** How connections are made (outbound policy, in-cluster overrides). */
  readonly options: AccessOptions;
  readonly #open = new Map<string, { revision: number; connection: KubeConnection }>();

  constructor(sealer: Sealer, options: AccessOptions) {
    this.#sealer = sealer;
    this.options = options;
  }

  /** How `record` is reached, its kubeconfig opened (plain text: never log it). */
  accessOf(record: ClusterRecord): ClusterAccess {
    return {
      name: record.name,
      serverURL: record.serverURL,
      ...(record.kubeconfig === null
        ? {}
        : { kubeconfig: this.#sealer.open(record.kubeconfig, kubeconfigContext(record.id)) }),
    };
  }

  /**
   * The connection to `record`'s cluster at its current revision. UnavailableError (503) when the stored settings
   * cannot be used (in-cluster credentials outside a Pod, an address the outbound policy now refuses): the record is
   * not the caller's input.
   */
  of(record: ClusterRecord): KubeConnection {
    const cached = this.#open.get(record.id);
    if (cached?.revision === record.revision) return cached.connection;
    let connection: KubeConnection;
    try {
      connection = connectCluster(this.accessOf(record), this.options);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      throw new UnavailableError(`cluster "${record.name}" cannot be used: ${err.message}`, { cause: err });
    }
    this.#open.set(record.id, { revision: record.revision, connection });
    if (cached) void cached.connection.client.dropConnections();
    return connection;
  }

  /** A connection for a dry run (POST /clusters/test); not cached. */
  probe(access: ClusterAccess): KubeConnection {
    return connectCluster(access, this.options);
  }

  /** Drops the connection of a removed cluster. */
  forget(id: string): void {
    const cached = this.#open.get(id);
    this.#open.delete(id);
    if (cached) void cached.connection.client.dropConnections();
  }

  /** Closes every connection (server shutdown). */
  async close(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(all.map((c) => c.connection.client.dropConnections()));
  }
}
