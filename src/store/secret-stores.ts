/**
 * Secret-store rows (contract §2.7), one org's stores unique by name. The credential fields are stored only sealed
 * (`enc:v1:`, by the caller through src/secrets/seal.ts); this module never sees them in the clear.
 */
import type { Kysely } from 'kysely';
import { ConflictError } from '../core/errors.ts';
import { isUniqueViolation, type Tables } from './database.ts';

/** The seal context of a store's credentials: a sealed value copied to another store does not open there. */
export const credentialsContext = (id: string): string => `secretstore:${id}:credentials`;

/** A stored secret store. `sealedCredentials` is the sealed JSON of the credential fields (null: none). */
export interface SecretStoreRecord {
  id: string;
  orgId: string;
  name: string;
  type: string;
  provider: string;
  config: Record<string, unknown>;
  sealedCredentials: string | null;
  status: string;
  statusDetail: string;
  lastTestedAt: string | null;
  credentialsExpireAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The outcome of a test, as stored. */
export interface StoreTestRecord {
  status: string;
  statusDetail: string;
  lastTestedAt: string;
  /** Left unchanged when undefined (a failed test says nothing about expiry). */
  credentialsExpireAt?: string | null;
}

function toRecord(r: Tables['secret_store']): SecretStoreRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    type: r.type,
    provider: r.provider,
    config: JSON.parse(r.config) as Record<string, unknown>,
    sealedCredentials: r.credentials,
    status: r.status,
    statusDetail: r.status_detail,
    lastTestedAt: r.last_tested_at,
    credentialsExpireAt: r.credentials_expire_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const duplicate = (name: string) => new ConflictError(`a secret store named "${name}" already exists`);

/** Secret-store persistence, always within one org. */
export class SecretStoreStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** The org's stores, by name. */
  async list(orgId: string): Promise<SecretStoreRecord[]> {
    const rows = await this.#db
      .selectFrom('secret_store')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('name')
      .execute();
    return rows.map(toRecord);
  }

  /** One store of the org by id, or undefined. */
  async get(orgId: string, id: string): Promise<SecretStoreRecord | undefined> {
    const row = await this.#db
      .selectFrom('secret_store')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** One store of the org by name, or undefined. */
  async getByName(orgId: string, name: string): Promise<SecretStoreRecord | undefined> {
    const row = await this.#db
      .selectFrom('secret_store')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** Inserts a new store; ConflictError (409) when the org already has one of that name. */
  async insert(record: SecretStoreRecord): Promise<void> {
    try {
      await this.#db
        .insertInto('secret_store')
        .values({
          id: record.id,
          org_id: record.orgId,
          name: record.name,
          type: record.type,
          provider: record.provider,
          config: JSON.stringify(record.config),
          credentials: record.sealedCredentials,
          status: record.status,
          status_detail: record.statusDetail,
          last_tested_at: record.lastTestedAt,
          credentials_expire_at: record.credentialsExpireAt,
          created_at: record.createdAt,
          updated_at: record.updatedAt,
        })
        .execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicate(record.name);
      throw err;
    }
  }

  /**
   * Replaces the name, config, sealed credentials, status fields and updatedAt of a store; ConflictError on a
   * duplicate name. Resolves false when the store does not exist (any more).
   */
  async update(record: SecretStoreRecord): Promise<boolean> {
    try {
      const r = await this.#db
        .updateTable('secret_store')
        .set({
          name: record.name,
          config: JSON.stringify(record.config),
          credentials: record.sealedCredentials,
          status: record.status,
          status_detail: record.statusDetail,
          last_tested_at: record.lastTestedAt,
          credentials_expire_at: record.credentialsExpireAt,
          updated_at: record.updatedAt,
        })
        .where('org_id', '=', record.orgId)
        .where('id', '=', record.id)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicate(record.name);
      throw err;
    }
  }

  /** Records a test's outcome on the store; false when it does not exist (any more). */
  async recordTest(orgId: string, id: string, test: StoreTestRecord): Promise<boolean> {
    const r = await this.#db
      .updateTable('secret_store')
      .set({
        status: test.status,
        status_detail: test.statusDetail,
        last_tested_at: test.lastTestedAt,
        ...(test.credentialsExpireAt === undefined ? {} : { credentials_expire_at: test.credentialsExpireAt }),
      })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Deletes a store of the org; true when one was deleted. */
  async delete(orgId: string, id: string): Promise<boolean> {
    const r = await this.#db
      .deleteFrom('secret_store')
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
