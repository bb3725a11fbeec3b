/**
 * Migration 0012: secret stores (contract §2.7, §4.4; issue 12). `credentials` holds the sealed (`enc:v1:`) JSON of
 * the provider's credential fields and is never returned.
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema
    .createTable('secret_store')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('credentials', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_detail', 'text', (c) => c.notNull())
    .addColumn('last_tested_at', 'text')
    .addColumn('credentials_expire_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('secret_store_org_name', ['org_id', 'name'])
    .execute();
}
