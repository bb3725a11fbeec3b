/**
 * Migration 0028: an org's delivery policies (issue 30): its approval policy and its delivery windows, one row per
 * org, each a JSON document validated by the API before it is stored.
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema
    .createTable('org_policy')
    .addColumn('org_id', 'text', (c) => c.primaryKey())
    .addColumn('approval', 'text')
    .addColumn('windows', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
