/**
 * Named leases in the database: at most one holder per name until its lease expires. Picks the one server replica
 * that runs a job (the incident detector) without any other coordination; a holder that dies is replaced once its
 * lease expires.
 */
import type { Kysely } from 'kysely';
import type { Tables } from './database.ts';

export class LeaseStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /**
   * Takes or renews the lease `name` for `holder` until `now + ttlMs`; true when `holder` holds it afterwards. A
   * lease held by another holder is taken only once it has expired. One statement (an upsert whose update is
   * conditional), so two contenders can never both win.
   */
  async acquire(name: string, holder: string, ttlMs: number, now = new Date()): Promise<boolean> {
    const at = now.toISOString();
    const expires = new Date(now.getTime() + ttlMs).toISOString();
    await this.#db
      .insertInto('svc_lease')
      .values({ name, holder, expires_at: expires })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ holder, expires_at: expires })
          .where((eb) => eb.or([eb('svc_lease.holder', '=', holder), eb('svc_lease.expires_at', '<', at)])),
      )
      .execute();
    const row = await this.#db.selectFrom('svc_lease').select('holder').where('name', '=', name).executeTakeFirst();
    return row?.holder === holder;
  }

  /** Gives the lease up at once (a clean shutdown), when `holder` holds it. */
  async release(name: string, holder: string): Promise<void> {
    await this.#db.deleteFrom('svc_lease').where('name', '=', name).where('holder', '=', holder).execute();
  }
}
