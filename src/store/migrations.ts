/**
 * svc's own schema, as an ordered list of Kysely migrations, one file each (./migrations/). Kysely's migrator records applied migrations and, on
 * PostgreSQL, runs them in one transaction under an advisory lock, so replicas starting together are safe.
 * Timestamps are ISO 8601 text on both databases so values compare and sort the same way.
 */
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { DatabaseKind, Store } from './database.ts';
import * as apiKeysAuditBindings from './migrations/0001_api_keys_audit_bindings.ts';
import * as registriesAndLeases from './migrations/0010_registries_and_leases.ts';
import * as clusters from './migrations/0011_clusters.ts';
import * as secretStores from './migrations/0012_secret_stores.ts';
import * as ops from './migrations/0013_ops.ts';
import * as apiKeyTools from './migrations/0015_api_key_tools.ts';
import * as repositories from './migrations/0024_repositories.ts';
import * as healthChecks from './migrations/0026_health_checks.ts';
import * as clusterLabels from './migrations/0027_cluster_labels.ts';
import * as orgPolicies from './migrations/0028_org_policies.ts';
import * as clusterWindows from './migrations/0029_cluster_windows.ts';
import * as catalog from './migrations/0030_catalog.ts';

/** One migration: its file's `up`, given the database kind where the two differ (triggers, serial columns). */
type Up = (db: Kysely<unknown>, kind: DatabaseKind) => Promise<void>;

/**
 * Every migration by the name `svc_migration` records, one file each in ./migrations/. Never rename one: existing
 * databases know their applied migrations by these names (test/integration/upgrade.test.ts runs this release on a
 * database the previous release made).
 */
const MIGRATIONS: Readonly<Record<string, Up>> = {
  '0001_api_keys_audit_bindings': apiKeysAuditBindings.up,
  '0010_registries_and_leases': registriesAndLeases.up,
  '0011_clusters': clusters.up,
  '0012_secret_stores': secretStores.up,
  '0013_ops': ops.up,
  '0015_api_key_tools': apiKeyTools.up,
  '0024_repositories': repositories.up,
  '0026_health_checks': healthChecks.up,
  '0027_cluster_labels': clusterLabels.up,
  '0028_org_policies': orgPolicies.up,
  '0029_cluster_windows': clusterWindows.up,
  '0030_catalog': catalog.up,
};

function migrations(kind: DatabaseKind): Record<string, Migration> {
  return Object.fromEntries(Object.entries(MIGRATIONS).map(([name, up]) => [name, { up: (db) => up(db, kind) }]));
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
