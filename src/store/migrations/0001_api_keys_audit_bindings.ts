/**
 * Migration 0001: API keys, the audit log (append-only, enforced by the database itself) and role bindings.
 */
import { type Kysely, sql } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await apiKeys(db);
  await auditLog(db, kind);
  await roleBindings(db);
  await auditImmutable(db, kind);
}

async function apiKeys(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_key')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_key_user').on('api_key').columns(['user_id', 'org_id']).execute();
}

async function auditLog(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const audit = db.schema.createTable('audit_log');
  await (kind === 'postgres'
    ? audit.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : audit.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
  )
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text')
    .addColumn('resource_name', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_org').on('audit_log').columns(['org_id', 'id']).execute();
}

async function roleBindings(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('role_binding')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('role_binding_unique', ['org_id', 'subject_type', 'subject_id', 'scope', 'scope_id'])
    .execute();
}

/**
 * Audit entries are immutable: updates and deletes are refused at the database itself. The database stores this SQL
 * as written: its text (indentation included) stays what earlier releases ran, so every database holds the same.
 */
async function auditImmutable(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind === 'postgres') {
    await sql`create function svc_audit_immutable() returns trigger language plpgsql as $$
            begin raise exception 'audit_log is append-only'; end $$`.execute(db);
    await sql`create trigger audit_log_immutable before update or delete on audit_log
            for each row execute function svc_audit_immutable()`.execute(db);
  } else {
    await sql`create trigger audit_log_no_update before update on audit_log
            begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
    await sql`create trigger audit_log_no_delete before delete on audit_log
            begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
  }
}
