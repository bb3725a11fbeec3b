/**
 * The internal channel from the operator to the server (docs/compatibility.md, "Internal channel"). The operator
 * holds no database and no credentials of its own: what it needs from the server, or must tell it, goes through
 * this interface. `svc start` runs both in one process and wires the server's implementation in directly
 * (./local-channel.ts); `svc operator` run alone calls the server's `/internal/*` routes over HTTP with its
 * credential (./http-channel.ts): audit entries, registered clusters' connection details, and secret-store values
 * (decryption keys and env.store values: the operator holds no store credentials). Registry credentials join them.
 */
import type { HealthCheck } from '../core/app-schema.ts';
import type { RegistryEndpoint } from '../registry/index.ts';

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
/** Which App asks for a secret-store value: the App resource's namespace (the org's) and name. */
export interface AppIdentity {
  appNamespace: string;
  appName: string;
}

/** A request for the age identity of the sops store an App's Git source names (`decryption.storeRef`). */
export interface DecryptionKeyRequest extends AppIdentity {
  storeRef: string;
}

/** One `env[].store` entry of an image workload: the variable, and where its value is. */
export interface EnvStoreRef {
  name: string;
  id: string;
  path: string;
  key: string;
}

/** A request for the values of an App's env.store entries, resolved once per sync (contract §4.4 rule 7). */
export interface EnvValuesRequest extends AppIdentity {
  refs: EnvStoreRef[];
}

/**
 * One resolved env.store entry: a literal value (vault, openbao), or, for an external-secrets store, what the
 * ExternalSecret object rendered for it names (the server fetches nothing then).
 */
export type ResolvedEnv =
  | { name: string; value: string }
  | {
      name: string;
      externalSecret: {
        storeName: string;
        storeKind: 'SecretStore' | 'ClusterSecretStore';
        refreshInterval: string;
        path: string;
        key: string;
      };
    };

/** What the operator asks of the server. Implementations throw typed errors (SvcError) with retry hints. */
export interface ServerChannel {
  /** Records one caller-less audit entry in the org owning `entry.orgNamespace`. */
  recordAudit(entry: SystemAuditEntry): Promise<void>;
  /**
   * The cluster `name` of the org owning `orgNamespace`. With `known` (a revision the caller holds) the answer is
   * `{changed: false}` while that revision is current, so checking costs no credential transfer. A not-found error
   * with retry hint `wait` when no such org or cluster exists.
   */
  clusterAccess(orgNamespace: string, name: string, known?: string): Promise<ClusterAccessAnswer>;
  /**
   * The age identity (`AGE-SECRET-KEY-1…`) of the sops store the App names, for one decryption at render time: the
   * server checks that the App names that store. The caller keeps it in memory for the decryption only and never
   * logs it.
   */
  decryptionKey(request: DecryptionKeyRequest): Promise<string>;
  /** The App's env.store entries resolved by the server (which holds the store credentials), in request order. */
  envValues(request: EnvValuesRequest): Promise<ResolvedEnv[]>;
  /**
   * The registry `name` of the org owning `orgNamespace` (an App's `spec.source.image.registryRef`): its host and
   * the credentials to present. NotFoundError (retry hint `wait`: the registry may be registered later) when the
   * org has no such registry.
   */
  registry(orgNamespace: string, name: string): Promise<RegistryEndpoint>;
  /**
   * The custom health checks of the org owning `orgNamespace` (`/api/v1/health-checks`), in the order they were
   * written; [] when it has none. NotFoundError (retry hint `wait`) when no org owns the namespace.
   */
  healthChecks(orgNamespace: string): Promise<HealthCheck[]>;
}

/** The body of GET /internal/clusters/{name}/kubeconfig (docs/api.md "Internal routes"). */
export interface ClusterAccessBody {
  name: string;
  org_namespace: string;
  server_url: string;
  namespaces: string[];
  credentials: 'kubeconfig' | 'in-cluster';
  kubeconfig?: string;
  revision: string;
}

/** Path of the cluster route below `/internal`: `/clusters/{name}/kubeconfig?org_namespace=<ns>` (contract §4.3). */
export const internalClusterPath = (name: string): string => `/clusters/${encodeURIComponent(name)}/kubeconfig`;

/** Path of the audit route, below `/internal` (and `/api/v1/internal`). */
export const INTERNAL_AUDIT_PATH = '/audit';
/** Path of the decryption-key route, below `/internal`. */
export const INTERNAL_DECRYPTION_KEY_PATH = '/secret-stores/decryption-key';
/** Path of the env.store values route, below `/internal`. */
export const INTERNAL_ENV_VALUES_PATH = '/secret-stores/env';
/** Path of the registry route, below `/internal`: `/registries/<org namespace>/<name>`. */
export const INTERNAL_REGISTRY_PATH = '/registries';
/** Path of the org health-checks route, below `/internal`: `/health-checks/<org namespace>`. */
export const INTERNAL_HEALTH_CHECKS_PATH = '/health-checks';
/** The two prefixes the server serves its internal routes under (contract §4.3 writes them both ways). */
export const INTERNAL_PREFIXES = ['/internal', '/api/v1/internal'] as const;
