/**
 * Migration 0010: container registries, and leases among server replicas sharing the database (the tag poller
 * and the incident detector hold one).
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema
    .createTable('registry')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('insecure', 'integer', (c) => c.notNull())
    .addColumn('ca_cert', 'text')
    .addColumn('username', 'text')
    .addColumn('password', 'text')
    .addColumn('notification_token_hash', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_detail', 'text', (c) => c.notNull())
    .addColumn('last_tested_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('registry_org_name', ['org_id', 'name'])
    .execute();
  // Leases among server replicas sharing the database (the tag poller runs on one of them).
  await db.schema
    .createTable('lease')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}
