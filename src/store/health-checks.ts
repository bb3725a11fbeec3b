/**
 * Health-check rows (docs/api.md "Health checks"): an org's custom health checks in CEL, one per apiVersion and
 * kind. The expressions are validated before they reach the store (src/engine/health/cel); the store keeps them as
 * written. The operator reads them through the internal channel.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { HealthCheck } from '../core/app-schema.ts';
import type { HealthCheckTable, Tables } from './database.ts';

/** A health check as the API shows it. */
export interface HealthCheckRecord extends HealthCheck {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** Prefix of health-check ids. */
export const HEALTH_CHECK_ID_PREFIX = 'hc_';

function toRecord(row: HealthCheckTable): HealthCheckRecord {
  return {
    id: row.id,
    apiVersion: row.api_version,
    kind: row.kind,
    current: row.current,
    ...(row.in_progress ? { inProgress: row.in_progress } : {}),
    ...(row.failed ? { failed: row.failed } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The org's health checks. */
export class HealthCheckStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** The org's checks, by apiVersion and kind. */
  async list(orgId: string): Promise<HealthCheckRecord[]> {
    const rows = await this.#db
      .selectFrom('health_check')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('api_version')
      .orderBy('kind')
      .execute();
    return rows.map(toRecord);
  }

  /** One check by id, undefined when the org has no such check. */
  async get(orgId: string, id: string): Promise<HealthCheckRecord | undefined> {
    const row = await this.#db
      .selectFrom('health_check')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /**
   * Creates the check of a kind, or replaces the one the org has for it (same id); answers it and whether it is new.
   * Run it in the caller's transaction (with its audit entry); a concurrent create of the same kind fails on the
   * unique (org, apiVersion, kind) constraint.
   */
  async put(orgId: string, check: HealthCheck): Promise<{ record: HealthCheckRecord; created: boolean }> {
    const now = new Date().toISOString();
    const fields = {
      current: check.current,
      in_progress: check.inProgress ?? null,
      failed: check.failed ?? null,
      updated_at: now,
    };
    const existing = await this.#byKind(orgId, check.apiVersion, check.kind);
    if (existing) {
      await this.#db.updateTable('health_check').set(fields).where('id', '=', existing.id).execute();
    } else {
      await this.#db
        .insertInto('health_check')
        .values({
          id: `${HEALTH_CHECK_ID_PREFIX}${randomBytes(8).toString('hex')}`,
          org_id: orgId,
          api_version: check.apiVersion,
          kind: check.kind,
          created_at: now,
          ...fields,
        })
        .execute();
    }
    const row = await this.#byKind(orgId, check.apiVersion, check.kind);
    if (!row) throw new Error('health check vanished while being written');
    return { record: toRecord(row), created: !existing };
  }

  #byKind(orgId: string, apiVersion: string, kind: string): Promise<HealthCheckTable | undefined> {
    return this.#db
      .selectFrom('health_check')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('api_version', '=', apiVersion)
      .where('kind', '=', kind)
      .executeTakeFirst();
  }

  /** Deletes a check; false when the org has no such check. */
  async delete(orgId: string, id: string): Promise<boolean> {
    const res = await this.#db
      .deleteFrom('health_check')
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
