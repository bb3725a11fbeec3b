/**
 * The internal channel from the operator to the server (docs/compatibility.md, "Internal channel"). The operator
 * holds no database and no credentials of its own: what it needs from the server, or must tell it, goes through
 * this interface. `svc start` runs both in one process and wires the server's implementation in directly
 * (./local-channel.ts); `svc operator` run alone calls the server's `/internal/*` routes over HTTP with its
 * credential (./http-channel.ts): audit entries, and registered clusters' connection details.
 */

/** Actions the operator may record: those of contract §6.4 that happen without a caller. */
export const SYSTEM_AUDIT_ACTIONS = ['app.sync', 'app.deploy'] as const;
export type SystemAuditAction = (typeof SYSTEM_AUDIT_ACTIONS)[number];

/**
 * An audit entry of a caller-less action (contract §2.8: user_id empty), about an App. The org is the one whose
 * namespace (`org-<slug>`) holds the App resource.
 */
export interface SystemAuditEntry {
  /** Namespace of the App resource on the management cluster; names the org. */
  orgNamespace: string;
  action: SystemAuditAction;
  resourceType: 'app';
  /** The App resource's uid, when known. */
  resourceId?: string;
  resourceName: string;
  details: Record<string, unknown>;
}

/**
 * A registered cluster as the operator reaches it (GET /internal/clusters/{name}/kubeconfig). Holds a credential in
 * plain text: never log it.
 */
export interface RemoteClusterAccess {
  name: string;
  /** The org namespace (`org-<slug>`) the cluster was asked for: cluster names are unique per org only. */
  orgNamespace: string;
  serverURL: string;
  /** The namespace allowlist ([] = cluster-wide). */
  namespaces: string[];
  /** Kubeconfig YAML; undefined = connect with the operator's own in-cluster ServiceAccount. */
  kubeconfig?: string;
  /** Opaque; changes whenever the record changes (also when the cluster is removed and registered again). */
  revision: string;
}

/** The answer to a cluster lookup: unchanged since the revision the caller holds, or the current record. */
export type ClusterAccessAnswer = { changed: false } | { changed: true; cluster: RemoteClusterAccess };

/** What the operator asks of the server. Implementations throw typed errors (SvcError) with retry hints. */
export interface ServerChannel {
  /** Records one caller-less audit entry in the org owning `entry.orgNamespace`. */
  recordAudit(entry: SystemAuditEntry): Promise<void>;
  /**
   * The cluster `name` of the org owning `orgNamespace`. With `known` (a revision the caller holds) the answer is
   * `{changed: false}` while that revision is current, so checking costs no credential transfer. NotFoundError
   * (retry hint `wait`) when no such org or cluster exists.
   */
  clusterAccess(orgNamespace: string, name: string, known?: string): Promise<ClusterAccessAnswer>;
}

/** Path of the cluster route below `/internal`: `/clusters/{name}/kubeconfig?org_namespace=<ns>` (contract §4.3). */
export const internalClusterPath = (name: string): string => `/clusters/${encodeURIComponent(name)}/kubeconfig`;

/** Path of the audit route, below `/internal` (and `/api/v1/internal`). */
export const INTERNAL_AUDIT_PATH = '/audit';
/** The two prefixes the server serves its internal routes under (contract §4.3 writes them both ways). */
export const INTERNAL_PREFIXES = ['/internal', '/api/v1/internal'] as const;
