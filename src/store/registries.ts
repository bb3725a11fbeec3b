/**
 * Registry rows (docs/api.md "Registries"): an org's container registries, their credentials sealed at rest with
 * the one sealing module (context `registry:<id>:password`, so a sealed value copied into another row does not
 * open there), and the SHA-256 of each registry's notification token. Nothing read from here carries a password
 * unless asked for by `endpoint` (the operator's and the registry client's need).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { RegistryEndpoint } from '../registry/index.ts';
import type { Sealer } from '../secrets/seal.ts';
import type { RegistryTable, Tables } from './database.ts';

/** Results of a registry test. */
export const REGISTRY_STATUSES = ['untested', 'connected', 'error'] as const;
export type RegistryStatus = (typeof REGISTRY_STATUSES)[number];

/** A registry as the API shows it: never the password, never the notification token. */
export interface RegistryRecord {
  id: string;
  orgId: string;
  name: string;
  host: string;
  insecure: boolean;
  ca: string | null;
  username: string | null;
  hasPassword: boolean;
  notificationsEnabled: boolean;
  status: RegistryStatus;
  statusDetail: string;
  lastTestedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The fields a create sets. */
export interface NewRegistry {
  orgId: string;
  name: string;
  host: string;
  insecure: boolean;
  ca: string | null;
  username: string | null;
  password: string | null;
}

/** The fields an update may change; undefined leaves a field as it is, null clears ca, username and password. */
export type RegistryChanges = Partial<Omit<NewRegistry, 'orgId'>>;

/** Prefix of registry ids. */
export const REGISTRY_ID_PREFIX = 'reg_';
/** Prefix of notification tokens, so a leaked one is recognisable. */
export const NOTIFICATION_TOKEN_PREFIX = 'svcrn_';

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function toRecord(row: RegistryTable): RegistryRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    host: row.host,
    insecure: row.insecure === 1,
    ca: row.ca_cert,
    username: row.username,
    hasPassword: row.password !== null,
    notificationsEnabled: row.notification_token_hash !== null,
    status: row.status as RegistryStatus,
    statusDetail: row.status_detail,
    lastTestedAt: row.last_tested_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Registry persistence; every read and write is within one org. */
export class RegistryStore {
  readonly #db: Kysely<Tables>;
  readonly #sealer: Sealer;

  constructor(db: Kysely<Tables>, sealer: Sealer) {
    this.#db = db;
    this.#sealer = sealer;
  }

  /** The org's registries, by name. */
  async list(orgId: string): Promise<RegistryRecord[]> {
    const rows = await this.#db
      .selectFrom('registry')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('name')
      .execute();
    return rows.map(toRecord);
  }

  /** One registry of the org by id, or undefined. */
  async get(orgId: string, id: string): Promise<RegistryRecord | undefined> {
    const row = await this.#row(orgId, 'id', id);
    return row && toRecord(row);
  }

  /** One registry of the org by name, or undefined. */
  async byName(orgId: string, name: string): Promise<RegistryRecord | undefined> {
    const row = await this.#row(orgId, 'name', name);
    return row && toRecord(row);
  }

  /**
   * Stores a new registry (status untested), sealing its password; returns it with the notification token, which
   * exists in plaintext only in this answer. Throws the database's unique-constraint error on a taken name.
   */
  async create(input: NewRegistry, now = new Date()): Promise<{ record: RegistryRecord; notificationToken: string }> {
    const id = REGISTRY_ID_PREFIX + randomBytes(12).toString('hex');
    const token = NOTIFICATION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const at = now.toISOString();
    const row: RegistryTable = {
      id,
      org_id: input.orgId,
      name: input.name,
      host: input.host,
      insecure: input.insecure ? 1 : 0,
      ca_cert: input.ca,
      username: input.username,
      password: input.password === null ? null : this.#sealer.seal(input.password, passwordContext(id)),
      notification_token_hash: sha256(token),
      status: 'untested',
      status_detail: '',
      last_tested_at: null,
      created_at: at,
      updated_at: at,
    };
    await this.#db.insertInto('registry').values(row).execute();
    return { record: toRecord(row), notificationToken: token };
  }

  /**
   * Applies `changes` (a new password is sealed; a changed host, user or password makes the status untested
   * again). Returns the updated registry, or undefined when the org has no such registry.
   */
  async update(
    orgId: string,
    id: string,
    changes: RegistryChanges,
    now = new Date(),
  ): Promise<RegistryRecord | undefined> {
    const set: Partial<RegistryTable> = { updated_at: now.toISOString() };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.host !== undefined) set.host = changes.host;
    if (changes.insecure !== undefined) set.insecure = changes.insecure ? 1 : 0;
    if (changes.ca !== undefined) set.ca_cert = changes.ca;
    if (changes.username !== undefined) set.username = changes.username;
    if (changes.password !== undefined) {
      set.password = changes.password === null ? null : this.#sealer.seal(changes.password, passwordContext(id));
    }
    const reaches = ['host', 'insecure', 'ca', 'username', 'password'] as const;
    if (reaches.some((k) => changes[k] !== undefined)) Object.assign(set, { status: 'untested', status_detail: '' });
    const res = await this.#db
      .updateTable('registry')
      .set(set)
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return undefined;
    return this.get(orgId, id);
  }

  /** Replaces the notification token; returns the new one (plaintext only here), or undefined when absent. */
  async rotateNotificationToken(orgId: string, id: string): Promise<string | undefined> {
    const token = NOTIFICATION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const res = await this.#db
      .updateTable('registry')
      .set({ notification_token_hash: sha256(token) })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 0 ? undefined : token;
  }

  /** Deletes the registry; false when the org has none with that id. */
  async delete(orgId: string, id: string): Promise<boolean> {
    const res = await this.#db
      .deleteFrom('registry')
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Records a test result. */
  async recordTest(orgId: string, id: string, status: RegistryStatus, detail: string, now = new Date()): Promise<void> {
    await this.#db
      .updateTable('registry')
      .set({ status, status_detail: detail, last_tested_at: now.toISOString() })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .execute();
  }

  /**
   * Where a registry answers and the credentials to present (the password opened from its seal), for the
   * registry client. Undefined when the org has no registry of that name. Throws UnsealError when the stored
   * password cannot be opened (another SVC_CREDENTIALS_KEY).
   */
  async endpoint(orgId: string, name: string): Promise<RegistryEndpoint | undefined> {
    const row = await this.#row(orgId, 'name', name);
    return row && this.#endpointOf(row);
  }

  /** The endpoint of a registry by id (see `endpoint`). */
  async endpointById(orgId: string, id: string): Promise<RegistryEndpoint | undefined> {
    const row = await this.#row(orgId, 'id', id);
    return row && this.#endpointOf(row);
  }

  /**
   * The registry whose notification token is `token`, looked up by id (any org: the notification endpoint has
   * no caller); undefined unless the token matches (compared in constant time).
   */
  async byNotificationToken(id: string, token: string): Promise<RegistryRecord | undefined> {
    const row = await this.#db.selectFrom('registry').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row?.notification_token_hash) return undefined;
    const want = Buffer.from(row.notification_token_hash, 'hex');
    const got = Buffer.from(sha256(token), 'hex');
    return want.length === got.length && timingSafeEqual(want, got) ? toRecord(row) : undefined;
  }

  #endpointOf(row: RegistryTable): RegistryEndpoint {
    const password = row.password === null ? undefined : this.#sealer.open(row.password, passwordContext(row.id));
    return {
      host: row.host,
      insecure: row.insecure === 1,
      ...(row.ca_cert ? { ca: row.ca_cert } : {}),
      ...(row.username !== null ? { credentials: { username: row.username, password: password ?? '' } } : {}),
    };
  }

  #row(orgId: string, column: 'id' | 'name', value: string): Promise<RegistryTable | undefined> {
    return this.#db
      .selectFrom('registry')
      .selectAll()
      .where('org_id', '=', orgId)
      .where(column, '=', value)
      .executeTakeFirst();
  }
}

/** The sealing context of a registry's password. */
export function passwordContext(id: string): string {
  return `registry:${id}:password`;
}
