/**
 * Migration 0024: an org's Git and Helm repositories with their credentials (issue 24, docs/api.md
 * "Repositories"). `password`, `ssh_private_key` and `tls_client_key` hold only `enc:v1:` text, sealed with a
 * context naming the row and field; user names, known_hosts, CA and client certificates are not secrets.
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema
    .createTable('repository')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('insecure', 'integer', (c) => c.notNull())
    .addColumn('username', 'text')
    .addColumn('password', 'text')
    .addColumn('ssh_private_key', 'text')
    .addColumn('known_hosts', 'text')
    .addColumn('ca_cert', 'text')
    .addColumn('tls_client_cert', 'text')
    .addColumn('tls_client_key', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_detail', 'text', (c) => c.notNull())
    .addColumn('last_tested_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('repository_org_name', ['org_id', 'name'])
    .execute();
}
