/**
 * Migration 0013: the tables of the operations loop (issue 13; docs/webhooks.md, docs/incidents.md): outbound webhooks and
 * their delivery queue, svc's own events, incidents, remediations and what the incident detector last saw of each App
 * (its lease is the `lease` table of migration 0010, src/store/lease.ts). Timestamps are ISO 8601 text, JSON columns are text.
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await webhooks(db);
  await deliveries(db);
  await events(db);
  await incidents(db);
  await remediations(db);
  await observations(db);
}

async function webhooks(db: Kysely<unknown>): Promise<void> {
  // An org's outbound webhook. `secret` is sealed (`enc:v1:`, context `webhook:<id>:secret`); `events` a JSON array.
  await db.schema
    .createTable('webhook')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_org').on('webhook').columns(['org_id', 'created_at']).execute();
}

async function deliveries(db: Kysely<unknown>): Promise<void> {
  // One event to one webhook: the durable delivery queue and its log. `body` is the exact JSON sent on every attempt;
  // `claimed_by`/`claimed_until` let one replica own a due row for one attempt (an expired claim is taken over).
  await db.schema
    .createTable('webhook_delivery')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhook.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('response_code', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('attempt_log', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_delivery_due')
    .on('webhook_delivery')
    .columns(['state', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_delivery_webhook')
    .on('webhook_delivery')
    .columns(['webhook_id', 'created_at'])
    .execute();
  await db.schema.createIndex('webhook_delivery_event').on('webhook_delivery').column('event_id').execute();
}

async function events(db: Kysely<unknown>): Promise<void> {
  // svc's own events (what webhooks receive, and the timeline of incidents). `data` is a JSON object.
  await db.schema
    .createTable('ops_event')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('app_name', 'text')
    .addColumn('app_namespace', 'text')
    .addColumn('app_cluster', 'text')
    .addColumn('incident_id', 'text')
    .addColumn('remediation_id', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ops_event_app').on('ops_event').columns(['org_id', 'app_name', 'created_at']).execute();
  await db.schema.createIndex('ops_event_incident').on('ops_event').column('incident_id').execute();
}

async function incidents(db: Kysely<unknown>): Promise<void> {
  // Incidents. `open_key` is `<org>/<app>/<cause>` while open and null once resolved: the unique index makes "one
  // open incident per App and cause" hold across replicas (null never collides).
  await db.schema
    .createTable('incident')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_name', 'text')
    .addColumn('app_namespace', 'text')
    .addColumn('app_cluster', 'text')
    .addColumn('cause', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('evidence', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('open_key', 'text', (c) => c.unique())
    .addColumn('opened_by', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'text', (c) => c.notNull())
    .addColumn('acknowledged_by', 'text')
    .addColumn('acknowledged_at', 'text')
    .addColumn('resolved_by', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('resolution', 'text')
    .execute();
  await db.schema.createIndex('incident_org').on('incident').columns(['org_id', 'state', 'opened_at']).execute();
}

async function remediations(db: Kysely<unknown>): Promise<void> {
  // What svc proposes to do about an incident, and what became of it.
  await db.schema
    .createTable('remediation')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('incident_id', 'text', (c) => c.notNull().references('incident.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('revision', 'text')
    .addColumn('pause_automated', 'integer', (c) => c.notNull())
    .addColumn('evidence', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('operation_id', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('reason', 'text')
    .addColumn('result', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('remediation_incident').on('remediation').column('incident_id').execute();
  await db.schema.createIndex('remediation_operation').on('remediation').column('operation_id').execute();
}

async function observations(db: Kysely<unknown>): Promise<void> {
  // What the incident detector last saw of each App (keyed by the App resource's namespace and name), so edges
  // (a sync succeeded, health recovered) are told once, across restarts and replicas; `healthy_revision` is the
  // last revision seen applied while the App was Synced and Healthy: the target of a rollback remediation.
  await db.schema
    .createTable('app_observation')
    .addColumn('app_ns', 'text', (c) => c.notNull())
    .addColumn('app_name', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('uid', 'text', (c) => c.notNull())
    .addColumn('facts', 'text', (c) => c.notNull())
    .addColumn('healthy_revision', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_observation_pk', ['app_ns', 'app_name'])
    .execute();
}
