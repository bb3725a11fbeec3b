/**
 * What an import answers (docs/migrate.md): per Argo CD or Flux object, the svc object it becomes (an App create
 * payload, a repository or a registry) or why it cannot be mapped, field by field, and a summary count. The report
 * holds no credential by construction: credentials found in Secrets travel beside it (`ImportCredentials`), from
 * the mapper to the code that seals them, and never into an answer or a log.
 */
import type { GitSource, HealthCheck, HelmChartSource, SyncPolicy } from '../app-schema.ts';
import type { AppSetSpec, AppTemplate, Generator } from '../appset-schema.ts';
import type { RepositoryCredentials, RepositoryType } from '../repository.ts';

/** How one field of the imported object fared. */
export type FieldStatus =
  /** Its value is carried into the svc field `to`. */
  | 'mapped'
  /** svc behaves this way without a field (e.g. CreateNamespace=true: svc always creates the namespace). */
  | 'equivalent'
  /** Dropped, and svc behaves differently: the reason says what to do instead. */
  | 'unsupported';

/** One field of the imported object and what became of it. */
export interface FieldNote {
  /** Path in the imported object, e.g. `spec.source.helm.valueFiles`. */
  field: string;
  status: FieldStatus;
  /** The svc field it went to (status mapped), e.g. `source.git.branch`. */
  to?: string;
  /** Why, or what differs. */
  note?: string;
}

/** An App as POST /api/v1/apps takes it (AppCreateRequest): Git or HelmChart sources only. */
export interface AppPayload {
  name: string;
  namespace: string;
  cluster?: string;
  source:
    | { type: 'Git'; git: Partial<GitSource> & { repoURL: string } }
    | { type: 'HelmChart'; helmChart: HelmChartSource };
  sync_policy?: SyncPolicy;
  health?: { checks: HealthCheck[] };
}

/** A repository as POST /api/v1/repositories takes it, without its secret parts (they are in ImportCredentials). */
export interface RepositoryPayload {
  name: string;
  type: RepositoryType;
  url: string;
  insecure?: boolean;
  username?: string;
  known_hosts?: string;
  ca?: string;
  tls_client_cert?: string;
  /** Which secret parts were found (never their values). */
  has_password: boolean;
  has_ssh_private_key: boolean;
  has_tls_client_key: boolean;
}

/** A registry as POST /api/v1/registries takes it, without its password. */
export interface RegistryPayload {
  name: string;
  host: string;
  username?: string;
  has_password: boolean;
}

/** An AppSet as POST /api/v1/appsets takes it (AppSetRequest). */
export interface AppSetPayload {
  name: string;
  generators: Generator[];
  template: AppTemplate;
  sync_policy?: AppSetSpec['syncPolicy'];
}

/** The object an entry is about, as the document names it. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** What became of one imported object. */
export interface ImportEntry {
  object: ObjectRef;
  /** mapped: every field carried over or equivalent; partial: some unsupported; unmapped: no svc object. */
  result: 'mapped' | 'partial' | 'unmapped';
  /** The svc object it becomes. */
  becomes?: { kind: 'App' | 'AppSet' | 'Repository' | 'Registry'; name: string };
  app?: AppPayload;
  appset?: AppSetPayload;
  repository?: RepositoryPayload;
  registry?: RegistryPayload;
  /** svc objects this one is part of (a Flux source read by Apps, a Secret whose credentials a repository holds). */
  partOf?: { kind: 'App' | 'Repository' | 'Registry'; name: string }[];
  /** Why it cannot be mapped (result unmapped). */
  reason?: string;
  fields: FieldNote[];
}

/** The counts of a report. */
export interface ImportSummary {
  objects: number;
  mapped: number;
  partial: number;
  unmapped: number;
  apps: number;
  appsets: number;
  repositories: number;
  registries: number;
}

/** What an import answers. */
export interface ImportReport {
  entries: ImportEntry[];
  summary: ImportSummary;
}

/**
 * The credentials found in Secrets, by the svc repository or registry name they belong to. Plain text, in memory
 * only: seal them or drop them; never log or return them.
 */
export interface ImportCredentials {
  repositories: Map<string, RepositoryCredentials>;
  registries: Map<string, { username: string; password: string }>;
}

/** A parsed Kubernetes-style document. */
export type Doc = Record<string, unknown> & { apiVersion?: unknown; kind?: unknown; metadata?: unknown };

/** Options of an import. */
export interface ImportOptions {
  /**
   * svc cluster names by Argo CD destination server URL or name (registered clusters). The management cluster's
   * own addresses (`https://kubernetes.default.svc`, `in-cluster`) need no entry.
   */
  clusters?: Record<string, string>;
  /**
   * The svc cluster Argo CD's in-cluster addresses name: '' (the management cluster) for YAML, the cluster read for
   * an import from a registered cluster (there, `https://kubernetes.default.svc` is that cluster).
   */
  inCluster?: string;
}
