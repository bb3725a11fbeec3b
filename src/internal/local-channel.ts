/**
 * The server's side of the internal channel: what `/internal/*` routes do, and what `svc start` hands its operator
 * directly (no HTTP). Audit entries land in the org owning the App's namespace, with an empty user_id.
 */
import type { Kysely } from 'kysely';
import { NotFoundError } from '../core/errors.ts';
import type { RegistryEndpoint } from '../registry/index.ts';
import type { AuditStore } from '../store/audit.ts';
import type { Tables } from '../store/database.ts';
import { orgIdOfNamespace } from '../store/orgs.ts';
import type { RegistryStore } from '../store/registries.ts';
import type { ServerChannel, SystemAuditEntry } from './channel.ts';

export class LocalServerChannel implements ServerChannel {
  readonly #db: Kysely<Tables>;
  readonly #audit: AuditStore;
  readonly #registries: RegistryStore;

  constructor(db: Kysely<Tables>, audit: AuditStore, registries: RegistryStore) {
    this.#db = db;
    this.#audit = audit;
    this.#registries = registries;
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
