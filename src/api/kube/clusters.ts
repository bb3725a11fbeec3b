/**
 * The seam between the App routes and registered clusters (src/api/clusters/directory.ts implements it): whether a
 * cluster is registered in an org and which namespaces its allowlist holds (the create rule of contract §4.2), and
 * a connection to it (workload events, adoptable workloads). The management cluster is the empty name.
 */
import type { KubeConnection } from '../../kube/index.ts';

export interface ClusterDirectory {
  /**
   * Undefined when `cluster` is not registered in the org; else its namespace allowlist ([] = cluster-wide). The
   * management cluster ('') has no allowlist.
   */
  namespacesOf(orgId: string, cluster: string): Promise<string[] | undefined>;
  /** A connection to the org's registered cluster `cluster` (not ''); NotFoundError when it is not registered. */
  connectionOf(orgId: string, cluster: string): Promise<KubeConnection>;
}
