/**
 * Migration 0015: an API key's optional MCP tool allowlist (issue 15): a JSON array of tool names; null = no
 * allowlist.
 */
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../database.ts';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema.alterTable('api_key').addColumn('tools', 'text').execute();
}
