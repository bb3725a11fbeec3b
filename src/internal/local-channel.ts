/**
 * The server's side of the internal channel: what `/internal/*` routes do, and what `svc start` hands its operator
 * directly (no HTTP). Audit entries land in the org owning the App's namespace, with an empty user_id; secret-store
 * fetches go to the server's resolver (src/api/secret-stores/resolver.ts), which holds the store credentials.
 */
import type { Kysely } from 'kysely';
import { NotFoundError, UnavailableError } from '../core/errors.ts';
import type { AuditStore } from '../store/audit.ts';
import type { Tables } from '../store/database.ts';
import { orgIdOfNamespace } from '../store/orgs.ts';
import type {
  DecryptionKeyRequest,
  EnvValuesRequest,
  ResolvedEnv,
  ServerChannel,
  SystemAuditEntry,
} from './channel.ts';

/** The server's secret-store fetches (the resolver), as the channel needs them. */
export type SecretValues = Pick<ServerChannel, 'decryptionKey' | 'envValues'>;

export class LocalServerChannel implements ServerChannel {
  readonly #db: Kysely<Tables>;
  readonly #audit: AuditStore;
  readonly #secrets: SecretValues | undefined;

  constructor(db: Kysely<Tables>, audit: AuditStore, secrets?: SecretValues) {
    this.#db = db;
    this.#audit = audit;
    this.#secrets = secrets;
  }

  /** Records the entry as the system; NotFoundError (not retried) when no org owns the namespace. */
  async recordAudit(entry: SystemAuditEntry): Promise<void> {
    const orgId = await orgIdOfNamespace(this.#db, entry.orgNamespace);
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
}
