/**
 * The svc database: Kysely over SQLite (the embedded default, a file under `.svc/`) or PostgreSQL (many server
 * replicas). The same Kysely instance serves svc's own tables and Better Auth's, so one connection pool and one
 * migration lock cover both.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { type ColumnType, type Generated, Kysely, PostgresAdapter, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.ts';

/** An API key row; the key itself is never stored, only its SHA-256. */
export interface ApiKeyTable {
  id: string;
  user_id: string;
  org_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  role: string;
  scope: string;
  scope_id: string;
  /** ISO 8601, null = never expires. */
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** JSON array of MCP tool names the key may call (migration 0015); null = every tool its ceilings allow. */
  tools: string | null;
}

/** An audit entry; rows are only ever inserted. `details` is a JSON object as text. */
export interface AuditLogTable {
  id: Generated<number>;
  org_id: string;
  created_at: string;
  user_id: string;
  action: string;
  resource_type: string;
  resource_id: string | null;
  resource_name: string;
  details: string;
}

/** A role binding: a user or team holds a level (read, sync, admin) at a scope of the org. */
export interface RoleBindingTable {
  id: string;
  org_id: string;
  subject_type: string;
  subject_id: string;
  scope: string;
  scope_id: string;
  level: string;
  created_at: string;
}

/**
 * A registered container registry of an org. `password` is sealed (`enc:v1:`, src/secrets/seal.ts); the
 * notification token is kept only as its SHA-256. `insecure` is 0/1 (plain http).
 */
export interface RegistryTable {
  id: string;
  org_id: string;
  name: string;
  host: string;
  insecure: number;
  ca_cert: string | null;
  username: string | null;
  password: string | null;
  notification_token_hash: string | null;
  status: string;
  status_detail: string;
  last_tested_at: string | null;
  created_at: string;
  updated_at: string;
}

/** An org's custom health check (CEL) for one apiVersion and kind. */
export interface HealthCheckTable {
  id: string;
  org_id: string;
  api_version: string;
  kind: string;
  current: string;
  in_progress: string | null;
  failed: string | null;
  created_at: string;
  updated_at: string;
}

/** An org's catalog template (migration 0030): its name and current version. */
export interface CatalogTemplateTable {
  id: string;
  org_id: string;
  name: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/** One version of a catalog template: the template as written, JSON text. */
export interface CatalogTemplateVersionTable {
  org_id: string;
  name: string;
  version: number;
  body: string;
  created_at: string;
}

/** An org's delivery policies (migration 0028): approval policy and delivery windows, JSON text. */
export interface OrgPolicyTable {
  org_id: string;
  approval: string | null;
  windows: string | null;
  updated_at: string;
}

/** An org's Git or Helm repository (migration 0024); secrets only as `enc:v1:` text. */
export interface RepositoryTable {
  id: string;
  org_id: string;
  name: string;
  type: string;
  url: string;
  insecure: number;
  username: string | null;
  password: string | null;
  ssh_private_key: string | null;
  known_hosts: string | null;
  ca_cert: string | null;
  tls_client_cert: string | null;
  tls_client_key: string | null;
  status: string;
  status_detail: string;
  last_tested_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A lease held by one server replica until `expires_at` (epoch milliseconds), renewed while it lives. */
export interface LeaseTable {
  name: string;
  holder: string;
  expires_at: ColumnType<number, number, number>;
}

/** A registered cluster (contract §2.6); `kubeconfig` is sealed (`enc:v1:`), null for in-cluster credentials. */
export interface ClusterTable {
  id: string;
  org_id: string;
  name: string;
  server_url: string;
  /** The namespace allowlist joined by commas; '' = cluster-wide. */
  namespaces: string;
  /** JSON object of label keys and values (the clusters generator of AppSets selects on them); '{}' = none. */
  labels: string;
  /** JSON array of delivery windows (src/core/windows.ts); '[]' = none. */
  windows: string;
  kubeconfig: string | null;
  revision: number;
  status: string;
  status_message: string;
  version: string;
  provider: string;
  region: string;
  node_count: number;
  cpu_usage: number;
  memory_usage: number;
  deployment_count: number;
  healthy_deployments: number;
  last_seen: string | null;
  created_at: string;
  updated_at: string;
}

/** A secret store (contract §2.7). `config` is JSON text; `credentials` the sealed JSON of the credential fields. */
export interface SecretStoreTable {
  id: string;
  org_id: string;
  name: string;
  type: string;
  provider: string;
  config: string;
  credentials: string | null;
  status: string;
  status_detail: string;
  last_tested_at: string | null;
  credentials_expire_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A shell pod on a cluster; `objects` is the JSON list of what was created for it (removed when it ends). */
export interface ClusterShellTable {
  id: string;
  org_id: string;
  cluster_id: string;
  user_id: string;
  power: string;
  objects: string;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
}

/**
 * Better Auth's tables that svc reads directly (camelCase columns, as Better Auth creates them). Teams and their
 * members are also written by svc (src/store/teams.ts: the writes of Better Auth's organization plugin, inside svc's
 * transaction with their audit entry).
 */
export interface AuthSessionTable {
  id: string;
  token: string;
  userId: string;
  expiresAt: ColumnType<Date | string | number, never, never>;
  createdAt: ColumnType<Date | string | number, never, never>;
  activeOrganizationId: string | null;
}
export interface AuthUserTable {
  id: string;
  email: string;
  name: string;
}
export interface AuthMemberTable {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: ColumnType<Date | string | number, never, never>;
}
export interface AuthOrganizationTable {
  id: string;
  name: string;
  slug: string;
}
export interface AuthTeamMemberTable {
  id: string;
  teamId: string;
  userId: string;
  membershipKey: ColumnType<string | null, string, never>;
  createdAt: ColumnType<Date | string | number | null, Date | string, never>;
}
export interface AuthTeamTable {
  id: string;
  organizationId: string;
  name: string;
  memberCount: ColumnType<number | null, number, number>;
  createdAt: ColumnType<Date | string | number, Date | string, never>;
  updatedAt: ColumnType<Date | string | number | null, Date | string, Date | string>;
}

/** An org's outbound webhook (src/store/webhooks.ts). */
export interface WebhookTable {
  id: string;
  org_id: string;
  name: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  /** Sealed signing secret (`enc:v1:`). */
  secret: string;
  created_by: string;
  created_at: string;
}

/** One event's delivery to one webhook: queue entry and log (src/store/deliveries.ts). */
export interface WebhookDeliveryTable {
  id: string;
  org_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  body: string;
  /** pending, delivered or failed (gave up). */
  state: string;
  attempts: number;
  next_attempt_at: string;
  claimed_by: string | null;
  claimed_until: string | null;
  response_code: number | null;
  latency_ms: number | null;
  last_error: string | null;
  /** JSON array of attempts. */
  attempt_log: string;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** One of svc's own events (src/store/ops-events.ts). */
export interface OpsEventTable {
  id: string;
  org_id: string;
  type: string;
  app_name: string | null;
  app_namespace: string | null;
  app_cluster: string | null;
  incident_id: string | null;
  remediation_id: string | null;
  data: string;
  created_at: string;
}

/** An incident (src/store/incidents.ts). */
export interface IncidentTable {
  id: string;
  org_id: string;
  app_name: string | null;
  app_namespace: string | null;
  app_cluster: string | null;
  cause: string;
  source: string;
  severity: string;
  title: string;
  message: string;
  evidence: string;
  state: string;
  open_key: string | null;
  opened_by: string;
  opened_at: string;
  acknowledged_by: string | null;
  acknowledged_at: string | null;
  resolved_by: string | null;
  resolved_at: string | null;
  resolution: string | null;
}

/** A proposed remediation of an incident (src/store/remediations.ts). */
export interface RemediationTable {
  id: string;
  org_id: string;
  incident_id: string;
  action: string;
  revision: string | null;
  /** 1 when approving also turns `syncPolicy.automated` off (so a rollback holds). */
  pause_automated: number;
  evidence: string;
  state: string;
  operation_id: string | null;
  decided_by: string | null;
  decided_at: string | null;
  reason: string | null;
  result: string | null;
  finished_at: string | null;
  created_at: string;
}

/** What the incident detector last saw of one App (src/store/observations.ts). */
export interface AppObservationTable {
  app_ns: string;
  app_name: string;
  org_id: string;
  uid: string;
  /** JSON of the observed facts (src/ops/observe.ts). */
  facts: string;
  healthy_revision: string;
  updated_at: string;
}

export interface Tables {
  webhook: WebhookTable;
  webhook_delivery: WebhookDeliveryTable;
  ops_event: OpsEventTable;
  incident: IncidentTable;
  remediation: RemediationTable;
  app_observation: AppObservationTable;
  api_key: ApiKeyTable;
  audit_log: AuditLogTable;
  role_binding: RoleBindingTable;
  registry: RegistryTable;
  health_check: HealthCheckTable;
  catalog_template: CatalogTemplateTable;
  catalog_template_version: CatalogTemplateVersionTable;
  org_policy: OrgPolicyTable;
  repository: RepositoryTable;
  lease: LeaseTable;
  cluster: ClusterTable;
  cluster_shell: ClusterShellTable;
  secret_store: SecretStoreTable;
  session: AuthSessionTable;
  user: AuthUserTable;
  member: AuthMemberTable;
  organization: AuthOrganizationTable;
  team: AuthTeamTable;
  teamMember: AuthTeamMemberTable;
}

export type DatabaseKind = DatabaseConfig['kind'];

/**
 * True when `db` (a Kysely instance or a transaction of one) speaks PostgreSQL: row locks (`FOR UPDATE`,
 * `SKIP LOCKED`) exist there; SQLite has one writer and no such clauses.
 */
export function isPostgres(db: Kysely<Tables>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** An open database: the Kysely instance, its dialect kind, and a cross-replica lock for migrations. */
export interface Store {
  db: Kysely<Tables>;
  kind: DatabaseKind;
  /**
   * Runs `fn` while holding the migration lock: a PostgreSQL session advisory lock (so replicas starting together
   * migrate one after another), or nothing extra on SQLite (one process owns the file).
   */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Advisory lock id of svc's migrations (distinct from Kysely's own migrator lock). */
const MIGRATION_LOCK_ID = 0x5c0d_b001;

/** Tail of the migration queue per SQLite file, so stores of one file in one process migrate one at a time. */
const sqliteQueues = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` after every earlier call for the same key has settled. SQLite files belong to one process (the embedded
 * default), so an in-process queue is the whole lock.
 */
function serialized<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = sqliteQueues.get(key) ?? Promise.resolve();
  const next = previous.then(fn, fn);
  sqliteQueues.set(
    key,
    next.catch(() => undefined),
  );
  return next;
}

/**
 * Opens the database named by `config`. SQLite files get their directory created, WAL mode and a busy timeout;
 * PostgreSQL gets a small pool. Does not migrate (see `migrateStore`).
 */
export function openStore(config: DatabaseConfig): Store {
  if (config.kind === 'sqlite') {
    if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
    const database = new SQLite(config.path);
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
    return {
      db,
      kind: 'sqlite',
      withMigrationLock: (fn) => serialized(config.path, fn),
      close: () => db.destroy(),
    };
  }
  const pool = new pg.Pool({ connectionString: config.url, max: 10 });
  // An idle connection the server closed (restart, failover, admin termination) is dropped by the pool and the next
  // query opens a fresh one; without a listener the pool's 'error' event would crash the process.
  pool.on('error', () => undefined);
  // A connection the server drops while it is checked out (a query or transaction in flight) rejects that query, and
  // node-postgres also emits 'error' on the client, where the pool listens only while the client is idle: this
  // listener keeps that event from crashing the process (the pool discards the broken client on release).
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'postgres',
    withMigrationLock: (fn) =>
      db.connection().execute(async (conn) => {
        await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK_ID)})`.execute(conn);
        try {
          return await fn();
        } finally {
          await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_ID)})`.execute(conn);
        }
      }),
    close: () => db.destroy(),
  };
}

/** Whether `err` is a unique-constraint violation of either database (SQLite or PostgreSQL). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
