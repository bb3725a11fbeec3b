/**
 * The Kubernetes connection of an App's destination, for what the API reads there on a user's behalf (the diff's
 * dry-run applies, the live resource tree, Pod logs): the management cluster ('') is the server's own connection,
 * a registered cluster is the one the ClusterDirectory opens (its sealed kubeconfig, the outbound policy).
 */
import { UnavailableError } from '../../core/errors.ts';
import type { KubeConnection } from '../../kube/index.ts';
import type { ClusterDirectory } from './clusters.ts';

export interface Destinations {
  /** The connection to the org's destination `cluster` ('' = the management cluster). */
  connection(orgId: string, cluster: string): Promise<KubeConnection>;
}

/**
 * Destinations over the management connection and the org's registered clusters. UnavailableError (503) for ''
 * without a management cluster; NotFoundError (404) for a cluster not registered in the org.
 */
export function destinationsOf(mgmt: KubeConnection | undefined, clusters: ClusterDirectory): Destinations {
  return {
    connection: async (orgId, cluster) => {
      if (cluster !== '') return clusters.connectionOf(orgId, cluster);
      if (!mgmt) throw new UnavailableError('no management cluster configured (SVC_MGMT_KUBECONFIG is unset)');
      return mgmt;
    },
  };
}
