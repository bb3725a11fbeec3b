/**
 * The Kubernetes connection of an App's destination, for what the API reads there on a user's behalf (the diff's
 * dry-run applies, the live resource tree, Pod logs). The management cluster ('') is the server's own connection.
 * The seam for registered remote clusters: a Destinations that returns their connection (built through the one
 * factory, src/kube/connect.ts) plugs in here, and every route above works for them unchanged.
 */
import { UnavailableError } from '../../core/errors.ts';
import type { KubeConnection } from '../../kube/index.ts';

export interface Destinations {
  /** The connection to the org's destination `cluster` ('' = the management cluster). */
  connection(orgId: string, cluster: string): Promise<KubeConnection>;
}

/** Destinations before registered clusters: the management cluster only. */
export function managementDestinations(mgmt: KubeConnection | undefined): Destinations {
  return {
    connection: async (_orgId, cluster) => {
      if (cluster !== '') {
        throw new UnavailableError(`destination cluster "${cluster}": remote clusters are not supported yet`);
      }
      if (!mgmt) throw new UnavailableError('no management cluster configured (SVC_MGMT_KUBECONFIG is unset)');
      return mgmt;
    },
  };
}
