/**
 * A lease in the database: one of the server replicas sharing a database holds it at a time (the tag poller's
 * "one poller across replicas"; the incident detector, through src/ops/lease.ts). Scoped to the database, like the orgs and registries the holder acts on. The
 * holder renews it well within its time to live; when it stops renewing (stopped or dead), another replica takes
 * it once it has expired. Times are the replicas' own clocks, so the time to live must exceed their skew.
 */
import type { Kysely } from 'kysely';
import type { Tables } from './database.ts';

export class DbLease {
  readonly #db: Kysely<Tables>;
  readonly #name: string;
  readonly #holder: string;
  readonly #ttlMs: number;

  constructor(db: Kysely<Tables>, options: { name: string; holder: string; ttlMs: number }) {
    this.#db = db;
    this.#name = options.name;
    this.#holder = options.holder;
    this.#ttlMs = options.ttlMs;
  }

  /** Takes or renews the lease; true when this holder has it now (until now + ttl). */
  async tryAcquire(now = Date.now()): Promise<boolean> {
    const expires = now + this.#ttlMs;
    await this.#db
      .insertInto('lease')
      .values({ name: this.#name, holder: this.#holder, expires_at: expires })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const res = await this.#db
      .updateTable('lease')
      .set({ holder: this.#holder, expires_at: expires })
      .where('name', '=', this.#name)
      .where((eb) => eb.or([eb('holder', '=', this.#holder), eb('expires_at', '<', now)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Gives the lease up (if held), so another replica takes it without waiting for it to expire. */
  async release(): Promise<void> {
    await this.#db
      .updateTable('lease')
      .set({ expires_at: 0 })
      .where('name', '=', this.#name)
      .where('holder', '=', this.#holder)
      .execute();
  }
}
