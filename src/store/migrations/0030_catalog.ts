/**
 * Migration 0030: the org's catalog (issue 27 item 4): one row per template (its current version) and one per
 * version written (JSON text of the template as written). Versions outlive a delete, so an App's history still
 * renders, and a template made again under the same name continues the numbering.
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema
    .createTable('catalog_template')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('catalog_template_org_name', ['org_id', 'name'])
    .execute();
  await db.schema
    .createTable('catalog_template_version')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('catalog_template_version_pk', ['org_id', 'name', 'version'])
    .execute();
}
