/**
 * Catalog template rows (docs/api.md "Catalog"): the current version of each of an org's templates, and every
 * version written (kept after a delete: an App's history names versions). Templates are validated before they reach
 * the store (src/core/catalog.ts); the operator reads them through the internal channel.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CatalogTemplateSpec, CatalogTemplateVersion } from '../core/catalog.ts';
import type { Tables } from './database.ts';

/** A template as the API shows it: its current version, with when it was made and last written. */
export interface CatalogTemplateRecord extends CatalogTemplateVersion {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** Prefix of template ids. */
export const CATALOG_ID_PREFIX = 'ct_';

/** The org's catalog. */
export class CatalogStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** The org's templates at their current versions, by name. */
  async list(orgId: string): Promise<CatalogTemplateRecord[]> {
    const rows = await this.#current(orgId).orderBy('t.name').execute();
    return rows.map(toRecord);
  }

  /** The template `name` at its current version; undefined when the org has none. */
  async get(orgId: string, name: string): Promise<CatalogTemplateRecord | undefined> {
    const row = await this.#current(orgId).where('t.name', '=', name).executeTakeFirst();
    return row && toRecord(row);
  }

  /** Version `version` of the template `name` (also of a deleted template); undefined when there is none. */
  async version(orgId: string, name: string, version: number): Promise<CatalogTemplateVersion | undefined> {
    const row = await this.#db
      .selectFrom('catalog_template_version')
      .select(['body', 'version'])
      .where('org_id', '=', orgId)
      .where('name', '=', name)
      .where('version', '=', version)
      .executeTakeFirst();
    return row && { ...(JSON.parse(row.body) as CatalogTemplateSpec), version: Number(row.version) };
  }

  /**
   * Writes a new version of the template (the first, or the next after the highest ever written under the name)
   * and makes it current; answers it and whether the template is new. Run it in the caller's transaction (with its
   * audit entry): a concurrent write of the same name fails on the version's primary key.
   */
  async put(orgId: string, spec: CatalogTemplateSpec): Promise<{ record: CatalogTemplateRecord; created: boolean }> {
    const now = new Date().toISOString();
    const top = await this.#db
      .selectFrom('catalog_template_version')
      .select((eb) => eb.fn.max('version').as('top'))
      .where('org_id', '=', orgId)
      .where('name', '=', spec.name)
      .executeTakeFirst();
    const version = Number(top?.top ?? 0) + 1;
    await this.#db
      .insertInto('catalog_template_version')
      .values({ org_id: orgId, name: spec.name, version, body: JSON.stringify(spec), created_at: now })
      .execute();
    const existing = await this.get(orgId, spec.name);
    if (existing) {
      await this.#db
        .updateTable('catalog_template')
        .set({ version, updated_at: now })
        .where('id', '=', existing.id)
        .execute();
    } else {
      await this.#db
        .insertInto('catalog_template')
        .values({
          id: `${CATALOG_ID_PREFIX}${randomBytes(8).toString('hex')}`,
          org_id: orgId,
          name: spec.name,
          version,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    const record = await this.get(orgId, spec.name);
    if (!record) throw new Error('catalog template vanished while being written');
    return { record, created: !existing };
  }

  /** Deletes the template (its versions stay); false when the org has none by that name. */
  async delete(orgId: string, name: string): Promise<boolean> {
    const res = await this.#db
      .deleteFrom('catalog_template')
      .where('org_id', '=', orgId)
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  #current(orgId: string) {
    return this.#db
      .selectFrom('catalog_template as t')
      .innerJoin('catalog_template_version as v', (j) =>
        j.onRef('v.org_id', '=', 't.org_id').onRef('v.name', '=', 't.name').onRef('v.version', '=', 't.version'),
      )
      .select(['t.id', 't.version', 't.created_at', 't.updated_at', 'v.body'])
      .where('t.org_id', '=', orgId);
  }
}

function toRecord(row: {
  id: string;
  version: number;
  created_at: string;
  updated_at: string;
  body: string;
}): CatalogTemplateRecord {
  return {
    ...(JSON.parse(row.body) as CatalogTemplateSpec),
    version: Number(row.version),
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
