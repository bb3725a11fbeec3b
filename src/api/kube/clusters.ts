/**
 * Which destination clusters an org may deploy to. Cluster registration arrives with the clusters issue; until
 * then only the management cluster ('') exists. The seam: a ClusterDirectory answers whether a cluster is
 * registered in an org and whether a namespace is inside its allowlist.
 */

export interface ClusterDirectory {
  /** Undefined when `cluster` is not registered in the org; else its namespace allowlist ([] = cluster-wide). */
  namespacesOf(orgId: string, cluster: string): Promise<string[] | undefined>;
}

/** The directory before cluster registration exists: the management cluster only, all namespaces allowed. */
export const managementOnly: ClusterDirectory = {
  namespacesOf: async (_orgId, cluster) => (cluster === '' ? [] : undefined),
};
