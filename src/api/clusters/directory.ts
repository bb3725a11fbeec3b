/** The ClusterDirectory of the API (src/api/kube/clusters.ts): the org's registered clusters in the database. */
import { NotFoundError } from '../../core/errors.ts';
import type { KubeConnection } from '../../kube/index.ts';
import type { ClusterStore } from '../../store/clusters.ts';
import type { ClusterDirectory } from '../kube/clusters.ts';
import type { ClusterConnections } from './connections.ts';

export class StoredClusterDirectory implements ClusterDirectory {
  readonly #clusters: ClusterStore;
  readonly #connections: ClusterConnections;

  constructor(clusters: ClusterStore, connections: ClusterConnections) {
    this.#clusters = clusters;
    this.#connections = connections;
  }

  async namespacesOf(orgId: string, cluster: string): Promise<string[] | undefined> {
    if (cluster === '') return [];
    return (await this.#clusters.get(orgId, cluster))?.namespaces;
  }

  async connectionOf(orgId: string, cluster: string): Promise<KubeConnection> {
    const record = await this.#clusters.get(orgId, cluster);
    if (!record) throw new NotFoundError(`cluster "${cluster}" is not registered in this organization`);
    return this.#connections.of(record);
  }
}
