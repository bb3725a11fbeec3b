/** A user's sign-in sessions (Better Auth's `session` table), as svc lists and revokes them. */
import type { Kysely } from 'kysely';
import type { Tables } from './database.ts';

/** A session as the API shows it. */
export interface SessionRecord {
  id: string;
  createdAt: string;
  expiresAt: string;
}

const iso = (v: Date | string | number): string => (v instanceof Date ? v : new Date(v)).toISOString();

export class SessionStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** The user's sessions that have not expired, newest first. */
  async live(userId: string, now = Date.now()): Promise<SessionRecord[]> {
    const rows = await this.#db
      .selectFrom('session')
      .select(['id', 'createdAt', 'expiresAt'])
      .where('userId', '=', userId)
      .execute();
    return rows
      .map((r) => ({ id: r.id, createdAt: iso(r.createdAt), expiresAt: iso(r.expiresAt) }))
      .filter((s) => Date.parse(s.expiresAt) > now)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** Removes one of the user's sessions; whether it existed. */
  async revoke(userId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('session')
      .where('id', '=', id)
      .where('userId', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
