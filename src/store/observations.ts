/** What the incident detector last saw of each App (src/ops/observe.ts), and its last healthy revision. */
import type { Kysely } from 'kysely';
import type { Facts } from '../core/observation.ts';
import { isPostgres, type Tables } from './database.ts';

export interface Observation {
  appNs: string;
  appName: string;
  orgId: string;
  uid: string;
  facts: Facts;
  healthyRevision: string;
}

export class ObservationStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /**
   * The stored observation of an App, locked for the rest of the transaction on PostgreSQL (`FOR UPDATE`), so two
   * replicas observing the same App one after another see each other's result instead of both telling an edge.
   */
  async getForUpdate(appNs: string, appName: string): Promise<Observation | undefined> {
    const row = await this.#db
      .selectFrom('app_observation')
      .selectAll()
      .where('app_ns', '=', appNs)
      .where('app_name', '=', appName)
      .$if(isPostgres(this.#db), (q) => q.forUpdate())
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      appNs: row.app_ns,
      appName: row.app_name,
      orgId: row.org_id,
      uid: row.uid,
      facts: JSON.parse(row.facts) as Facts,
      healthyRevision: row.healthy_revision,
    };
  }

  /** Stores the observation (insert or replace). */
  async put(o: Observation, now = new Date()): Promise<void> {
    const values = {
      app_ns: o.appNs,
      app_name: o.appName,
      org_id: o.orgId,
      uid: o.uid,
      facts: JSON.stringify(o.facts),
      healthy_revision: o.healthyRevision,
      updated_at: now.toISOString(),
    };
    await this.#db
      .insertInto('app_observation')
      .values(values)
      .onConflict((oc) =>
        oc.columns(['app_ns', 'app_name']).doUpdateSet({
          org_id: values.org_id,
          uid: values.uid,
          facts: values.facts,
          healthy_revision: values.healthy_revision,
          updated_at: values.updated_at,
        }),
      )
      .execute();
  }

  /** Forgets an App (deleted). */
  async remove(appNs: string, appName: string): Promise<void> {
    await this.#db.deleteFrom('app_observation').where('app_ns', '=', appNs).where('app_name', '=', appName).execute();
  }

  /** Every observed App's key (to find Apps deleted while no detector ran). */
  async keys(): Promise<{ appNs: string; appName: string }[]> {
    const rows = await this.#db.selectFrom('app_observation').select(['app_ns', 'app_name']).execute();
    return rows.map((r) => ({ appNs: r.app_ns, appName: r.app_name }));
  }
}
