/**
 * The internal channel from the operator to the server (docs/compatibility.md, "Internal channel"). The operator
 * holds no database and no credentials of its own: what it needs from the server, or must tell it, goes through
 * this interface. `svc start` runs both in one process and wires the server's implementation in directly
 * (./local-channel.ts); `svc operator` run alone calls the server's `/internal/*` routes over HTTP with its
 * credential (./http-channel.ts): audit entries, registered clusters' connection details, and secret-store values
 * (decryption keys and env.store values: the operator holds no store credentials). Registry credentials and the
 * credentials of private Git and chart repositories join them.
 */
import type { HealthCheck } from '../core/app-schema.ts';
import type { CatalogTemplateVersion } from '../core/catalog.ts';
import type { RepositoryType, SourceAccess } from '../core/repository.ts';
import type { DeliveryWindow } from '../core/windows.ts';
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

/** A registered cluster as an AppSet's clusters generator sees it: its name and labels, never how to reach it. */
export interface ClusterLabels {
  name: string;
  labels: Record<string, string>;
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

/**
 * Which credentials reach a source: an App's Git repository or chart repository (`url`), in the org owning
 * `orgNamespace`, through the repository the App names (`repositoryRef`) or else the org's covering repository
 * with the longest URL (src/core/repository.ts).
 */
export interface SourceAccessRequest {
  orgNamespace: string;
  type: RepositoryType;
  url: string;
  repositoryRef?: string;
}

/** An org's delivery windows: its own, and each registered cluster's by name (docs/operator.md "Delivery windows"). */
export interface OrgDeliveryWindows {
  org: DeliveryWindow[];
  clusters: Record<string, DeliveryWindow[]>;
}

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
   * The registered clusters of the org owning `orgNamespace`, by name, with their labels (no credentials): what an
   * AppSet's clusters generator selects from. NotFoundError (retry hint `wait`) when no org owns the namespace.
   */
  clusters(orgNamespace: string): Promise<ClusterLabels[]>;
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
  /**
   * The delivery windows of the org owning `orgNamespace` and of its clusters (clusters without windows are left
   * out). NotFoundError (retry hint `wait`) when no org owns the namespace.
   */
  deliveryWindows(orgNamespace: string): Promise<OrgDeliveryWindows>;
  /**
   * Version `version` of the catalog template `name` of the org owning `orgNamespace` (also of a deleted template:
   * an App's history names versions), or its current version without `version`. NotFoundError (retry hint `wait`)
   * when there is no such org, template or version.
   */
  catalogTemplate(orgNamespace: string, name: string, version?: number): Promise<CatalogTemplateVersion>;
  /**
   * The credentials that reach a source (see SourceAccessRequest), opened: undefined when no repository covers
   * the URL (the source is read anonymously). For an `oci://` chart URL no repository covers, the org's registry
   * of that host applies. NotFoundError (retry hint `wait`) when `repositoryRef` names no repository of that type
   * or one whose URL does not cover `url`. Holds secrets in plain text: never log the answer.
   */
  sourceAccess(request: SourceAccessRequest): Promise<SourceAccess | undefined>;
}

/** The body of POST /internal/repositories/access (docs/api.md "Internal routes"); credentials in plain text. */
export interface SourceAccessBody {
  repository: string | null;
  insecure?: boolean;
  credentials?: {
    username?: string;
    password?: string;
    ssh_private_key?: string;
    known_hosts?: string;
    ca?: string;
    tls_client_cert?: string;
    tls_client_key?: string;
  };
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

/** Path of the cluster-list route below `/internal`: `/clusters?org_namespace=<ns>` (names and labels). */
export const INTERNAL_CLUSTERS_PATH = '/clusters';
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
/** Path of the delivery-windows route, below `/internal`: `/delivery-windows/<org namespace>`. */
export const INTERNAL_WINDOWS_PATH = '/delivery-windows';
/** Path of the catalog route, below `/internal`: `/catalog/<org namespace>/<name>[?version=N]`. */
export const INTERNAL_CATALOG_PATH = '/catalog';
/** Path of the source-access route, below `/internal`. */
export const INTERNAL_SOURCE_ACCESS_PATH = '/repositories/access';
/** The two prefixes the server serves its internal routes under (contract §4.3 writes them both ways). */
export const INTERNAL_PREFIXES = ['/internal', '/api/v1/internal'] as const;

/** SourceAccess as the source-access route answers it (snake_case, as every internal body). */
export function sourceAccessBody(access: SourceAccess | undefined): SourceAccessBody {
  if (!access) return { repository: null };
  const c = access.credentials;
  const pairs: [keyof NonNullable<SourceAccessBody['credentials']>, string | undefined][] = [
    ['username', c.username],
    ['password', c.password],
    ['ssh_private_key', c.sshPrivateKey],
    ['known_hosts', c.knownHosts],
    ['ca', c.ca],
    ['tls_client_cert', c.tlsClientCert],
    ['tls_client_key', c.tlsClientKey],
  ];
  return {
    repository: access.repository,
    ...(access.insecure ? { insecure: true } : {}),
    credentials: Object.fromEntries(pairs.filter(([, v]) => v !== undefined)),
  };
}

/** The SourceAccess a source-access answer carries (undefined for `{repository: null}`). */
export function sourceAccessOf(body: SourceAccessBody | undefined): SourceAccess | undefined {
  if (!body || typeof body.repository !== 'string') return undefined;
  const c = body.credentials ?? {};
  const pairs: [keyof SourceAccess['credentials'], string | undefined][] = [
    ['username', c.username],
    ['password', c.password],
    ['sshPrivateKey', c.ssh_private_key],
    ['knownHosts', c.known_hosts],
    ['ca', c.ca],
    ['tlsClientCert', c.tls_client_cert],
    ['tlsClientKey', c.tls_client_key],
  ];
  return {
    repository: body.repository,
    credentials: Object.fromEntries(pairs.filter(([, v]) => v !== undefined)),
    ...(body.insecure ? { insecure: true } : {}),
  };
}
