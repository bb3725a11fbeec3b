/**
 * The server's side of the internal channel: what `/internal/*` routes do, and what `svc start` hands its operator
 * directly (no HTTP). Audit entries land in the org owning the App's namespace, with an empty user_id; cluster
 * lookups open the org's sealed kubeconfig (the only place it is opened for the operator); secret-store fetches go to
 * the server's resolver (src/api/secret-stores/resolver.ts), which holds the store credentials; registry lookups
 * open the registry's sealed password.
 */
import type { Kysely } from 'kysely';
import type { HealthCheck } from '../../core/app-schema.ts';
import type { CatalogTemplateVersion } from '../../core/catalog.ts';
import { NotFoundError, UnavailableError } from '../../core/errors.ts';
import type { SourceAccess } from '../../core/repository.ts';
import type {
  ClusterAccessAnswer,
  ClusterLabels,
  DecryptionKeyRequest,
  EnvValuesRequest,
  OrgDeliveryWindows,
  ResolvedEnv,
  ServerChannel,
  SourceAccessRequest,
  SystemAuditEntry,
} from '../../internal/channel.ts';
import type { RegistryEndpoint } from '../../registry/index.ts';
import type { Sealer } from '../../secrets/seal.ts';
import type { AuditStore } from '../../store/audit.ts';
import { ClusterStore, kubeconfigContext } from '../../store/clusters.ts';
import type { Tables } from '../../store/database.ts';
import { HealthCheckStore } from '../../store/health-checks.ts';
import { orgWindows } from '../../store/org-policies.ts';
import { orgIdOfNamespace } from '../../store/orgs.ts';
import type { RegistryStore } from '../../store/registries.ts';
import { catalogTemplateOf } from '../catalog/lookup.ts';

/** The server's secret-store fetches (the resolver), as the channel needs them. */
export type SecretValues = Pick<ServerChannel, 'decryptionKey' | 'envValues'>;

/** What the channel reads besides the database: sealed kubeconfigs, registries, secret-store values. */
export interface LocalChannelParts {
  sealer: Sealer;
  registries: RegistryStore;
  /** Without it, decryption keys and env.store values answer UnavailableError. */
  secrets?: SecretValues;
  /** The org's repositories' credentials (src/api/repositories); without it every source is read anonymously. */
  sources?: Pick<ServerChannel, 'sourceAccess'>;
}

export class LocalServerChannel implements ServerChannel {
  readonly #db: Kysely<Tables>;
  readonly #audit: AuditStore;
  readonly #clusters: ClusterStore;
  readonly #sealer: Sealer;
  readonly #secrets: SecretValues | undefined;
  readonly #registries: RegistryStore;
  readonly #healthChecks: HealthCheckStore;
  readonly #sources: Pick<ServerChannel, 'sourceAccess'> | undefined;

  constructor(db: Kysely<Tables>, audit: AuditStore, parts: LocalChannelParts) {
    this.#db = db;
    this.#audit = audit;
    this.#clusters = new ClusterStore(db);
    this.#sealer = parts.sealer;
    this.#secrets = parts.secrets;
    this.#registries = parts.registries;
    this.#healthChecks = new HealthCheckStore(db);
    this.#sources = parts.sources;
  }

  /** The org's custom health checks; NotFoundError (hint `wait`) when no org owns the namespace. */
  async healthChecks(orgNamespace: string): Promise<HealthCheck[]> {
    const orgId = await this.#orgOf(orgNamespace, 'wait');
    return (await this.#healthChecks.list(orgId)).map(({ apiVersion, kind, current, inProgress, failed }) => ({
      apiVersion,
      kind,
      current,
      ...(inProgress ? { inProgress } : {}),
      ...(failed ? { failed } : {}),
    }));
  }

  /** The org's delivery windows and its clusters'; NotFoundError (hint `wait`) when no org owns the namespace. */
  async deliveryWindows(orgNamespace: string): Promise<OrgDeliveryWindows> {
    const orgId = await this.#orgOf(orgNamespace, 'wait');
    const clusters = (await this.#clusters.list(orgId)).filter((c) => c.windows.length > 0);
    return {
      org: await orgWindows(this.#db, orgId),
      clusters: Object.fromEntries(clusters.map((c) => [c.name, c.windows])),
    };
  }

  /** A version of an org's catalog template, the current one without `version` (see ServerChannel). */
  catalogTemplate(orgNamespace: string, name: string, version?: number): Promise<CatalogTemplateVersion> {
    return catalogTemplateOf(this.#db, orgNamespace, name, version);
  }

  /** The credentials reaching a source (see ServerChannel.sourceAccess). */
  sourceAccess(request: SourceAccessRequest): Promise<SourceAccess | undefined> {
    return this.#sources ? this.#sources.sourceAccess(request) : Promise.resolve(undefined);
  }

  /** The id of the org owning an org namespace; NotFoundError with `retry` when there is none. */
  async #orgOf(orgNamespace: string, retry: 'stall' | 'wait'): Promise<string> {
    const orgId = await orgIdOfNamespace(this.#db, orgNamespace);
    if (!orgId) throw new NotFoundError(`no organization owns namespace "${orgNamespace}"`, { retry });
    return orgId;
  }

  /** Records the entry as the system; NotFoundError (not retried) when no org owns the namespace. */
  async recordAudit(entry: SystemAuditEntry): Promise<void> {
    const orgId = await this.#orgOf(entry.orgNamespace, 'stall');
    await this.#audit.record({
      orgId,
      userId: '',
      action: entry.action,
      resourceType: entry.resourceType,
      ...(entry.resourceId ? { resourceId: entry.resourceId } : {}),
      resourceName: entry.resourceName,
      details: entry.details,
    });
  }

  /** The org's clusters with their labels; NotFoundError (hint `wait`) when no org owns the namespace. */
  async clusters(orgNamespace: string): Promise<ClusterLabels[]> {
    const orgId = await this.#orgOf(orgNamespace, 'wait');
    return (await this.#clusters.list(orgId)).map((c) => ({ name: c.name, labels: c.labels }));
  }

  /** The org's cluster with its kubeconfig opened; NotFoundError (hint `wait`: it may be registered later). */
  async clusterAccess(orgNamespace: string, name: string, known?: string): Promise<ClusterAccessAnswer> {
    const orgId = await orgIdOfNamespace(this.#db, orgNamespace);
    const record = orgId ? await this.#clusters.get(orgId, name) : undefined;
    if (!record) {
      throw new NotFoundError(
        `cluster "${name}" is not registered in the organization of namespace "${orgNamespace}"`,
        {
          retry: 'wait',
        },
      );
    }
    const revision = `${record.id}.${record.revision}`;
    if (known === revision) return { changed: false };
    return {
      changed: true,
      cluster: {
        name: record.name,
        orgNamespace,
        serverURL: record.serverURL,
        namespaces: record.namespaces,
        ...(record.kubeconfig === null
          ? {}
          : { kubeconfig: this.#sealer.open(record.kubeconfig, kubeconfigContext(record.id)) }),
        revision,
      },
    };
  }

  decryptionKey(request: DecryptionKeyRequest): Promise<string> {
    return this.#values().decryptionKey(request);
  }

  envValues(request: EnvValuesRequest): Promise<ResolvedEnv[]> {
    return this.#values().envValues(request);
  }

  #values(): SecretValues {
    if (!this.#secrets) throw new UnavailableError('this server resolves no secret-store values');
    return this.#secrets;
  }

  /** The org's registry `name` with its opened credentials (see ServerChannel.registry). */
  async registry(orgNamespace: string, name: string): Promise<RegistryEndpoint> {
    const orgId = await this.#orgOf(orgNamespace, 'wait');
    const endpoint = await this.#registries.endpoint(orgId, name);
    if (!endpoint) {
      throw new NotFoundError(`registry "${name}" is not registered in this organization`, { retry: 'wait' });
    }
    return endpoint;
  }
}
