/**
 * Migration 0027: labels of a registered cluster (issue 27): a JSON object of label keys and values, `{}` for none,
 * which an AppSet's `clusters` generator selects on.
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema
    .alterTable('cluster')
    .addColumn('labels', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
}
