/**
 * Migration 0029: delivery windows of a registered cluster (issue 30 item 5): a JSON array of windows, `[]` for none,
 * validated by the API before it is stored (the org's are in org_policy.windows, migration 0028).
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema
    .alterTable('cluster')
    .addColumn('windows', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}
