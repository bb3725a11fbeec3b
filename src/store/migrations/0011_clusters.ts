/**
 * Migration 0011: registered clusters (contract §2.6) and the shell pods spawned on them.
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
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
  await db.schema.createIndex('cluster_shell_open').on('cluster_shell').columns(['ended_at', 'expires_at']).execute();
}
