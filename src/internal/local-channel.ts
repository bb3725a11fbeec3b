/**
 * The server's side of the internal channel: what `/internal/*` routes do, and what `svc start` hands its operator
 * directly (no HTTP). Audit entries land in the org owning the App's namespace, with an empty user_id.
 */
import type { Kysely } from 'kysely';
import { NotFoundError } from '../core/errors.ts';
import { orgSlugOf } from '../core/names.ts';
import type { AuditStore } from '../store/audit.ts';
import type { Tables } from '../store/database.ts';
import type { ServerChannel, SystemAuditEntry } from './channel.ts';

export class LocalServerChannel implements ServerChannel {
  readonly #db: Kysely<Tables>;
  readonly #audit: AuditStore;

  constructor(db: Kysely<Tables>, audit: AuditStore) {
    this.#db = db;
    this.#audit = audit;
  }

  /** Records the entry as the system; NotFoundError (not retried) when no org owns the namespace. */
  async recordAudit(entry: SystemAuditEntry): Promise<void> {
    const slug = orgSlugOf(entry.orgNamespace);
    const org = slug
      ? await this.#db.selectFrom('organization').select('id').where('slug', '=', slug).executeTakeFirst()
      : undefined;
    if (!org) throw new NotFoundError(`no organization owns namespace "${entry.orgNamespace}"`, { retry: 'stall' });
    await this.#audit.record({
      orgId: org.id,
      userId: '',
      action: entry.action,
      resourceType: entry.resourceType,
      ...(entry.resourceId ? { resourceId: entry.resourceId } : {}),
      resourceName: entry.resourceName,
      details: entry.details,
    });
  }
}
