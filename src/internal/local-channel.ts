/**
 * The server's side of the internal channel: what `/internal/*` routes do, and what `svc start` hands its operator
 * directly (no HTTP). Audit entries land in the org owning the App's namespace, with an empty user_id; cluster
 * lookups open the org's sealed kubeconfig (the only place it is opened for the operator).
 */
import type { Kysely } from 'kysely';
import { NotFoundError } from '../core/errors.ts';
import { orgSlugOf } from '../core/names.ts';
import type { Sealer } from '../secrets/seal.ts';
import type { AuditStore } from '../store/audit.ts';
import { ClusterStore } from '../store/clusters.ts';
import type { Tables } from '../store/database.ts';
import type { ClusterAccessAnswer, ServerChannel, SystemAuditEntry } from './channel.ts';

/** The sealing context of a cluster's kubeconfig (AAD: a sealed value opens only in its own row and field). */
export const kubeconfigContext = (clusterId: string): string => `cluster:${clusterId}:kubeconfig`;

export class LocalServerChannel implements ServerChannel {
  readonly #db: Kysely<Tables>;
  readonly #audit: AuditStore;
  readonly #clusters: ClusterStore;
  readonly #sealer: Sealer;

  constructor(db: Kysely<Tables>, audit: AuditStore, sealer: Sealer) {
    this.#db = db;
    this.#audit = audit;
    this.#clusters = new ClusterStore(db);
    this.#sealer = sealer;
  }

  /** Records the entry as the system; NotFoundError (not retried) when no org owns the namespace. */
  async recordAudit(entry: SystemAuditEntry): Promise<void> {
    const orgId = await this.#orgOf(entry.orgNamespace);
    if (!orgId) throw new NotFoundError(`no organization owns namespace "${entry.orgNamespace}"`, { retry: 'stall' });
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

  /** The org's cluster with its kubeconfig opened; NotFoundError (hint `wait`: it may be registered later). */
  async clusterAccess(orgNamespace: string, name: string, known?: string): Promise<ClusterAccessAnswer> {
    const orgId = await this.#orgOf(orgNamespace);
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

  async #orgOf(namespace: string): Promise<string | undefined> {
    const slug = orgSlugOf(namespace);
    const org = slug
      ? await this.#db.selectFrom('organization').select('id').where('slug', '=', slug).executeTakeFirst()
      : undefined;
    return org?.id;
  }
}
