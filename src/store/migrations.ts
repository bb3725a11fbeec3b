/**
 * svc's own schema, as an ordered list of Kysely migrations. Kysely's migrator records applied migrations and, on
 * PostgreSQL, runs them in one transaction under an advisory lock, so replicas starting together are safe.
 * Timestamps are ISO 8601 text on both databases so values compare and sort the same way.
 */
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { DatabaseKind, Store } from './database.ts';
import { createOpsTables } from './ops-schema.ts';

function migrations(kind: DatabaseKind): Record<string, Migration> {
  return {
    '0001_api_keys_audit_bindings': {
      async up(db: Kysely<unknown>) {
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
        if (kind === 'postgres') {
          // Audit entries are immutable: refuse updates and deletes at the database itself.
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
      },
    },
    '0010_registries_and_leases': {
      async up(db: Kysely<unknown>) {
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
      },
    },
    '0011_clusters': {
      async up(db: Kysely<unknown>) {
        // Registered clusters (contract §2.6). `kubeconfig` holds only `enc:v1:` text (null = the server's own
        // in-cluster credentials); `revision` grows with every change of how the cluster is reached, so the
        // operator can tell cheaply whether its cached connection is current.
        await db.schema
          .createTable('cluster')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('server_url', 'text', (c) => c.notNull())
          .addColumn('namespaces', 'text', (c) => c.notNull())
          .addColumn('kubeconfig', 'text')
          .addColumn('revision', 'integer', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('status_message', 'text', (c) => c.notNull())
          .addColumn('version', 'text', (c) => c.notNull())
          .addColumn('provider', 'text', (c) => c.notNull())
          .addColumn('region', 'text', (c) => c.notNull())
          .addColumn('node_count', 'integer', (c) => c.notNull())
          .addColumn('cpu_usage', 'integer', (c) => c.notNull())
          .addColumn('memory_usage', 'integer', (c) => c.notNull())
          .addColumn('deployment_count', 'integer', (c) => c.notNull())
          .addColumn('healthy_deployments', 'integer', (c) => c.notNull())
          .addColumn('last_seen', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addUniqueConstraint('cluster_org_name', ['org_id', 'name'])
          .execute();
        // Shell pods spawned on clusters, so they can be removed when they expire (by any server replica).
        await db.schema
          .createTable('cluster_shell')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('cluster_id', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('power', 'text', (c) => c.notNull())
          .addColumn('objects', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .addColumn('ended_at', 'text')
          .execute();
        await db.schema
          .createIndex('cluster_shell_open')
          .on('cluster_shell')
          .columns(['ended_at', 'expires_at'])
          .execute();
      },
    },
    // Secret stores (contract §2.7, §4.4; issue 12). `credentials` holds the sealed (`enc:v1:`) JSON of the
    // provider's credential fields and is never returned.
    '0012_secret_stores': {
      async up(db: Kysely<unknown>) {
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
      },
    },
    // The operations loop (issue 13): webhooks and their delivery queue, events, incidents, remediations, the
    // detector's observations (./ops-schema.ts); the detector's lease uses 0010's `lease` table.
    '0013_ops': {
      async up(db: Kysely<unknown>) {
        await createOpsTables(db);
      },
    },
    '0015_api_key_tools': {
      // An API key's optional MCP tool allowlist (issue 15): a JSON array of tool names; null = no allowlist.
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('api_key').addColumn('tools', 'text').execute();
      },
    },
    '0026_health_checks': {
      // An org's custom health checks in CEL (issue 26): one row per apiVersion and kind (unique per org).
      async up(db: Kysely<unknown>) {
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
      },
    },
  };
}

/** Names of svc's migrations for a database kind, in the order they apply (what `svc_migration` records). */
export function svcMigrationNames(kind: DatabaseKind): string[] {
  return Object.keys(migrations(kind)).sort();
}

/**
 * Applies every pending svc migration (and then `extra`, e.g. Better Auth's schema) under the store's migration
 * lock. Throws with the failing migration's error; a failed migration is rolled back on PostgreSQL.
 */
export async function migrateStore(store: Store, extra?: () => Promise<void>): Promise<void> {
  await store.withMigrationLock(async () => {
    const provider: MigrationProvider = { getMigrations: async () => migrations(store.kind) };
    // Migrations are named by issue number and land in any order (0015 before 0010–0012): each touches its own
    // tables, so one added below an applied one still runs (Kysely refuses that by default).
    const migrator = new Migrator({
      db: store.db,
      provider,
      migrationTableName: 'svc_migration',
      allowUnorderedMigrations: true,
    });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    if (extra) await extra();
  });
}
