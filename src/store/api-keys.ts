/**
 * API key rows. The plaintext key (`svc_` + 32 random bytes, base64url) exists only in the create response; the
 * table holds its SHA-256, which is enough because the key carries 256 bits of entropy.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from './database.ts';

/** Every API key starts with this (contract §5.3). */
export const API_KEY_PREFIX = 'svc_';
/** Characters of the key shown in listings (the `svc_` prefix plus eight of the random part). */
const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

/** An API key record as the API shows it (never the key or its hash). */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  orgId: string;
  name: string;
  prefix: string;
  role: string;
  scope: string;
  scopeId: string;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** MCP tools the key may call (its allowlist); null = every tool its ceilings allow. */
  tools: string[] | null;
}

export interface NewApiKey {
  userId: string;
  orgId: string;
  name: string;
  role: string;
  scope: string;
  scopeId: string;
  /** 0 = never expires. */
  expiresDays: number;
  /** The key's MCP tool allowlist; absent or null = none. */
  tools?: string[] | null;
}

/** SHA-256 of a plaintext key, hex. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function toRecord(row: Tables['api_key']): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    orgId: row.org_id,
    name: row.name,
    prefix: row.prefix,
    role: row.role,
    scope: row.scope,
    scopeId: row.scope_id,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    tools: row.tools === null ? null : (JSON.parse(row.tools) as string[]),
  };
}

/** API key persistence: create (returning the plaintext once), find by plaintext, list per user, revoke. */
export class ApiKeyStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Mints a key, stores its hash and returns the record plus the plaintext key (the only time it exists). */
  async create(input: NewApiKey, now = new Date()): Promise<{ record: ApiKeyRecord; key: string }> {
    const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
    const row: Tables['api_key'] = {
      id: randomUUID(),
      user_id: input.userId,
      org_id: input.orgId,
      name: input.name,
      prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
      key_hash: hashApiKey(key),
      role: input.role,
      scope: input.scope,
      scope_id: input.scopeId,
      expires_at: input.expiresDays > 0 ? new Date(now.getTime() + input.expiresDays * 86_400_000).toISOString() : null,
      created_at: now.toISOString(),
      last_used_at: null,
      revoked_at: null,
      tools: input.tools ? JSON.stringify(input.tools) : null,
    };
    await this.#db.insertInto('api_key').values(row).execute();
    return { record: toRecord(row), key };
  }

  /**
   * The live key matching a plaintext, or undefined when it is unknown, revoked or expired. Records the use time
   * (best effort: a failed update does not fail authentication).
   */
  async findActive(key: string, now = new Date()): Promise<ApiKeyRecord | undefined> {
    if (!key.startsWith(API_KEY_PREFIX)) return undefined;
    const row = await this.#db
      .selectFrom('api_key')
      .selectAll()
      .where('key_hash', '=', hashApiKey(key))
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) return undefined;
    if (row.expires_at !== null && row.expires_at <= now.toISOString()) return undefined;
    await this.#db
      .updateTable('api_key')
      .set({ last_used_at: now.toISOString() })
      .where('id', '=', row.id)
      .execute()
      .catch(() => undefined);
    return toRecord(row);
  }

  /** The keys a user minted in an org, newest first, revoked ones included (they show `revokedAt`). */
  async listForUser(userId: string, orgId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.#db
      .selectFrom('api_key')
      .selectAll()
      .where('user_id', '=', userId)
      .where('org_id', '=', orgId)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map(toRecord);
  }

  /** One of the user's keys in the org, or undefined (another user's or org's key reads as absent). */
  async getForUser(id: string, userId: string, orgId: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.#db
      .selectFrom('api_key')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** Revokes a key of the user in the org; true when a live key was revoked by this call. */
  async revoke(id: string, userId: string, orgId: string, now = new Date()): Promise<boolean> {
    const result = await this.#db
      .updateTable('api_key')
      .set({ revoked_at: now.toISOString() })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('org_id', '=', orgId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
