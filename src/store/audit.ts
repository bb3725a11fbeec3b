/** The audit log: append-only, org-scoped entries of every state-changing call (contract §2.8, §6.4). */
import type { Kysely } from 'kysely';
import type { Tables } from './database.ts';

/** An audit entry as the API returns it. */
export interface AuditEntry {
  id: number;
  created_at: string;
  user_id: string;
  /** The acting user's name and email as they are now (see `actors`); absent for svc itself or a user gone. */
  user_name?: string;
  user_email?: string;
  action: string;
  resource_type: string;
  resource_id?: string;
  resource_name: string;
  details: Record<string, unknown>;
}

export interface NewAuditEntry {
  orgId: string;
  /** '' for system or caller-less actions. */
  userId: string;
  action: string;
  resourceType: string;
  resourceId?: string;
  resourceName: string;
  details?: Record<string, unknown>;
}

/** What an audit entry says, before it is stamped with the org and the user who acted. */
export type AuditNote = Omit<NewAuditEntry, 'orgId' | 'userId'>;

/** Largest page `list` returns. */
export const AUDIT_PAGE_MAX = 200;

/** Audit persistence: `record` appends, `list` pages newest first within one org. There is no update or delete. */
export class AuditStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Appends an entry stamped now. */
  async record(entry: NewAuditEntry, now = new Date()): Promise<void> {
    await this.#db
      .insertInto('audit_log')
      .values({
        org_id: entry.orgId,
        created_at: now.toISOString(),
        user_id: entry.userId,
        action: entry.action,
        resource_type: entry.resourceType,
        resource_id: entry.resourceId ?? null,
        resource_name: entry.resourceName,
        details: JSON.stringify(entry.details ?? {}),
      })
      .execute();
  }

  /** One page of an org's entries, newest first; `limit` is clamped to 1..200. */
  async list(orgId: string, limit: number, offset: number): Promise<AuditEntry[]> {
    const rows = await this.#db
      .selectFrom('audit_log')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('id', 'desc')
      .limit(Math.min(Math.max(limit, 1), AUDIT_PAGE_MAX))
      .offset(Math.max(offset, 0))
      .execute();
    return rows.map((r) => {
      const entry: AuditEntry = {
        id: Number(r.id),
        created_at: r.created_at,
        user_id: r.user_id,
        action: r.action,
        resource_type: r.resource_type,
        resource_name: r.resource_name,
        details: JSON.parse(r.details) as Record<string, unknown>,
      };
      if (r.resource_id !== null) entry.resource_id = r.resource_id;
      return entry;
    });
  }

  /**
   * The name and email of each of `userIds` that exists (from the auth component's `user` table, which exists
   * wherever the API runs), so a page of entries can say who acted; '' (svc itself) is never looked up.
   */
  async actors(userIds: readonly string[]): Promise<Map<string, { name: string; email: string }>> {
    const ids = [...new Set(userIds.filter(Boolean))];
    if (ids.length === 0) return new Map();
    const rows = await this.#db.selectFrom('user').select(['id', 'name', 'email']).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, { name: r.name, email: r.email }]));
  }
}
