/**
 * Migration 0026: an org's custom health checks in CEL (issue 26): one row per apiVersion and kind (unique per org).
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema
    .createTable('health_check')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('api_version', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('current', 'text', (c) => c.notNull())
    .addColumn('in_progress', 'text')
    .addColumn('failed', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('health_check_org_kind', ['org_id', 'api_version', 'kind'])
    .execute();
}
