/**
 * Repository rows (docs/api.md "Repositories"): an org's Git and Helm repositories and the credentials that reach
 * them. The password, SSH private key and TLS client key are sealed at rest with the one sealing module (context
 * `repository:<id>:<field>`, so a sealed value copied into another row or field does not open there). Nothing
 * read from here carries a secret unless asked for by `access` (the engine's need, through the server).
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { RepositoryCredentials, RepositoryEntry, RepositoryType, SourceAccess } from '../core/repository.ts';
import type { Sealer } from '../secrets/seal.ts';
import type { RepositoryTable, Tables } from './database.ts';

/** Results of a repository test. */
export type RepositoryStatus = 'untested' | 'connected' | 'error';

/** A repository as the API shows it: never a secret, only whether each is set. */
export interface RepositoryRecord {
  id: string;
  orgId: string;
  name: string;
  type: RepositoryType;
  url: string;
  insecure: boolean;
  username: string | null;
  hasPassword: boolean;
  hasSshPrivateKey: boolean;
  knownHosts: string | null;
  ca: string | null;
  tlsClientCert: string | null;
  hasTlsClientKey: boolean;
  status: RepositoryStatus;
  statusDetail: string;
  lastTestedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The fields a create sets (credentials in plain text, sealed here). */
export interface NewRepository {
  orgId: string;
  name: string;
  type: RepositoryType;
  url: string;
  insecure: boolean;
  username: string | null;
  password: string | null;
  sshPrivateKey: string | null;
  knownHosts: string | null;
  ca: string | null;
  tlsClientCert: string | null;
  tlsClientKey: string | null;
}

/** The fields an update may change; undefined leaves a field, null clears it. */
export type RepositoryChanges = Partial<Omit<NewRepository, 'orgId' | 'type'>>;

/** Prefix of repository ids. */
export const REPOSITORY_ID_PREFIX = 'repo_';

/** The sealed fields and their columns. */
const SEALED = { password: 'password', sshPrivateKey: 'ssh_private_key', tlsClientKey: 'tls_client_key' } as const;

/** The sealing context of one secret field of a repository. */
export function repositoryContext(id: string, field: keyof typeof SEALED): string {
  return `repository:${id}:${field}`;
}

function toRecord(row: RepositoryTable): RepositoryRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    type: row.type as RepositoryType,
    url: row.url,
    insecure: row.insecure === 1,
    username: row.username,
    hasPassword: row.password !== null,
    hasSshPrivateKey: row.ssh_private_key !== null,
    knownHosts: row.known_hosts,
    ca: row.ca_cert,
    tlsClientCert: row.tls_client_cert,
    hasTlsClientKey: row.tls_client_key !== null,
    status: row.status as RepositoryStatus,
    statusDetail: row.status_detail,
    lastTestedAt: row.last_tested_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Repository persistence; every read and write is within one org. */
export class RepositoryStore {
  readonly #db: Kysely<Tables>;
  readonly #sealer: Sealer;

  constructor(db: Kysely<Tables>, sealer: Sealer) {
    this.#db = db;
    this.#sealer = sealer;
  }

  /** The org's repositories, by name. */
  async list(orgId: string): Promise<RepositoryRecord[]> {
    const rows = await this.#db
      .selectFrom('repository')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('name')
      .execute();
    return rows.map(toRecord);
  }

  /** What matching needs of the org's repositories (name, type, URL). */
  async entries(orgId: string): Promise<RepositoryEntry[]> {
    const rows = await this.#db
      .selectFrom('repository')
      .select(['name', 'type', 'url'])
      .where('org_id', '=', orgId)
      .execute();
    return rows.map((r) => ({ name: r.name, type: r.type as RepositoryType, url: r.url }));
  }

  /** One repository of the org by id, or undefined. */
  async get(orgId: string, id: string): Promise<RepositoryRecord | undefined> {
    const row = await this.#row(orgId, 'id', id);
    return row && toRecord(row);
  }

  /** One repository of the org by name, or undefined. */
  async byName(orgId: string, name: string): Promise<RepositoryRecord | undefined> {
    const row = await this.#row(orgId, 'name', name);
    return row && toRecord(row);
  }

  /** Stores a new repository (status untested), sealing its secrets. Throws the unique error on a taken name. */
  async create(input: NewRepository, now = new Date()): Promise<RepositoryRecord> {
    const id = REPOSITORY_ID_PREFIX + randomBytes(12).toString('hex');
    const at = now.toISOString();
    const row: RepositoryTable = {
      id,
      org_id: input.orgId,
      name: input.name,
      type: input.type,
      url: input.url,
      insecure: input.insecure ? 1 : 0,
      username: input.username,
      password: this.#seal(id, 'password', input.password),
      ssh_private_key: this.#seal(id, 'sshPrivateKey', input.sshPrivateKey),
      known_hosts: input.knownHosts,
      ca_cert: input.ca,
      tls_client_cert: input.tlsClientCert,
      tls_client_key: this.#seal(id, 'tlsClientKey', input.tlsClientKey),
      status: 'untested',
      status_detail: '',
      last_tested_at: null,
      created_at: at,
      updated_at: at,
    };
    await this.#db.insertInto('repository').values(row).execute();
    return toRecord(row);
  }

  /**
   * Applies `changes` (secrets sealed; any change of how the repository is reached makes it untested again).
   * Undefined when the org has no such repository.
   */
  async update(orgId: string, id: string, changes: RepositoryChanges, now = new Date()) {
    const set: Partial<RepositoryTable> = { updated_at: now.toISOString() };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.url !== undefined) set.url = changes.url;
    if (changes.insecure !== undefined) set.insecure = changes.insecure ? 1 : 0;
    if (changes.username !== undefined) set.username = changes.username;
    if (changes.knownHosts !== undefined) set.known_hosts = changes.knownHosts;
    if (changes.ca !== undefined) set.ca_cert = changes.ca;
    if (changes.tlsClientCert !== undefined) set.tls_client_cert = changes.tlsClientCert;
    for (const field of Object.keys(SEALED) as (keyof typeof SEALED)[]) {
      const value = changes[field];
      if (value !== undefined) set[SEALED[field]] = this.#seal(id, field, value);
    }
    if (Object.keys(changes).some((k) => k !== 'name' && changes[k as keyof RepositoryChanges] !== undefined)) {
      Object.assign(set, { status: 'untested', status_detail: '' });
    }
    const res = await this.#db
      .updateTable('repository')
      .set(set)
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return undefined;
    return this.get(orgId, id);
  }

  /** Deletes the repository; false when the org has none with that id. */
  async delete(orgId: string, id: string): Promise<boolean> {
    const res = await this.#db
      .deleteFrom('repository')
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Records a test result. */
  async recordTest(orgId: string, id: string, status: RepositoryStatus, detail: string, now = new Date()) {
    await this.#db
      .updateTable('repository')
      .set({ status, status_detail: detail, last_tested_at: now.toISOString() })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .execute();
  }

  /**
   * The repository `name` with its credentials opened (the engine's need). Undefined when the org has none of
   * that name. Throws UnsealError when a secret cannot be opened (another SVC_CREDENTIALS_KEY).
   */
  async access(orgId: string, name: string): Promise<SourceAccess | undefined> {
    const row = await this.#row(orgId, 'name', name);
    return row && this.#accessOf(row);
  }

  /** The access of a repository by id (see `access`). */
  async accessById(orgId: string, id: string): Promise<SourceAccess | undefined> {
    const row = await this.#row(orgId, 'id', id);
    return row && this.#accessOf(row);
  }

  #accessOf(row: RepositoryTable): SourceAccess {
    const open = (field: keyof typeof SEALED, sealed: string | null) =>
      sealed === null ? undefined : this.#sealer.open(sealed, repositoryContext(row.id, field));
    const password = open('password', row.password);
    const sshPrivateKey = open('sshPrivateKey', row.ssh_private_key);
    const tlsClientKey = open('tlsClientKey', row.tls_client_key);
    const credentials: RepositoryCredentials = {
      ...(row.username !== null ? { username: row.username } : {}),
      ...(password !== undefined ? { password } : {}),
      ...(sshPrivateKey !== undefined ? { sshPrivateKey } : {}),
      ...(row.known_hosts !== null ? { knownHosts: row.known_hosts } : {}),
      ...(row.ca_cert !== null ? { ca: row.ca_cert } : {}),
      ...(row.tls_client_cert !== null ? { tlsClientCert: row.tls_client_cert } : {}),
      ...(tlsClientKey !== undefined ? { tlsClientKey } : {}),
    };
    return { repository: row.name, credentials, ...(row.insecure === 1 ? { insecure: true } : {}) };
  }

  #seal(id: string, field: keyof typeof SEALED, value: string | null | undefined): string | null {
    return value === null || value === undefined ? null : this.#sealer.seal(value, repositoryContext(id, field));
  }

  #row(orgId: string, column: 'id' | 'name', value: string): Promise<RepositoryTable | undefined> {
    return this.#db
      .selectFrom('repository')
      .selectAll()
      .where('org_id', '=', orgId)
      .where(column, '=', value)
      .executeTakeFirst();
  }
}
