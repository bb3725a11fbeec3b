/**
 * Teams of an org and their members. The tables are Better Auth's (its organization plugin creates them and its own
 * routes create and remove teams); svc's /teams use-cases write them here instead, inside svc's transaction with the
 * audit entry of the change. The writes are the plugin's own (better-auth 1.7.7, plugins/organization/adapter):
 * a team row with a member count, membership rows carrying the plugin's membership key.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isPostgres, type Tables } from './database.ts';

/** A team with its member count. */
export interface TeamRecord {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string | null;
  memberCount: number;
}

/** A team member. */
export interface TeamMemberRecord {
  userId: string;
  email: string;
  name: string;
  addedAt: string | null;
}

/** A member of an org (who may join its teams). */
export interface OrgMemberRecord {
  userId: string;
  email: string;
  name: string;
}

const iso = (v: Date | string | number | null | undefined): string | null =>
  v === null || v === undefined ? null : (v instanceof Date ? v : new Date(v)).toISOString();

/** An id as Better Auth makes them: 32 random letters and digits. */
function newId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(32)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** The plugin's membership key: one row per user and team (base64url of SHA-256 of `[teamId, userId]`). */
function membershipKey(teamId: string, userId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([teamId, userId]))
    .digest('base64url');
}

/** Team persistence (see the module comment). */
export class TeamStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** A timestamp as the dialect stores Better Auth's dates (PostgreSQL: a timestamp; SQLite: ISO text). */
  #now(): Date | string {
    const now = new Date();
    return isPostgres(this.#db) ? now : now.toISOString();
  }

  /** The org's teams with their member counts, by name. */
  async list(orgId: string): Promise<TeamRecord[]> {
    const rows = await this.#db
      .selectFrom('team')
      .leftJoin('teamMember', 'teamMember.teamId', 'team.id')
      .select(['team.id', 'team.name', 'team.createdAt', 'team.updatedAt'])
      .select((eb) => eb.fn.count<number>('teamMember.id').as('members'))
      .where('team.organizationId', '=', orgId)
      .groupBy(['team.id', 'team.name', 'team.createdAt', 'team.updatedAt'])
      .execute();
    return rows
      .map((t) => ({
        id: t.id,
        name: t.name,
        createdAt: iso(t.createdAt) ?? '',
        updatedAt: iso(t.updatedAt),
        memberCount: Number(t.members),
      }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  /** The org's team `id`, or undefined. */
  async get(orgId: string, id: string): Promise<TeamRecord | undefined> {
    const t = await this.#db
      .selectFrom('team')
      .select(['id', 'name', 'createdAt', 'updatedAt'])
      .where('organizationId', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!t) return undefined;
    const count = await this.#db
      .selectFrom('teamMember')
      .select((eb) => eb.fn.count<number>('id').as('n'))
      .where('teamId', '=', id)
      .executeTakeFirst();
    return {
      id: t.id,
      name: t.name,
      createdAt: iso(t.createdAt) ?? '',
      updatedAt: iso(t.updatedAt),
      memberCount: Number(count?.n ?? 0),
    };
  }

  /** How many teams the org has. */
  async count(orgId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('team')
      .select((eb) => eb.fn.count<number>('id').as('n'))
      .where('organizationId', '=', orgId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Whether the org has a team named `name`. */
  async nameTaken(orgId: string, name: string): Promise<boolean> {
    const taken = await this.#db
      .selectFrom('team')
      .select('id')
      .where('organizationId', '=', orgId)
      .where('name', '=', name)
      .executeTakeFirst();
    return taken !== undefined;
  }

  /** The members of a team, by email. */
  async members(teamId: string): Promise<TeamMemberRecord[]> {
    const rows = await this.#db
      .selectFrom('teamMember')
      .innerJoin('user', 'user.id', 'teamMember.userId')
      .select(['user.id', 'user.email', 'user.name', 'teamMember.createdAt'])
      .where('teamMember.teamId', '=', teamId)
      .execute();
    return rows
      .map((r) => ({ userId: r.id, email: r.email, name: r.name, addedAt: iso(r.createdAt) }))
      .sort((a, b) => a.email.localeCompare(b.email));
  }

  /** Names of the org's teams `userId` belongs to (approval policies name teams). */
  async teamNamesOf(orgId: string, userId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('teamMember')
      .innerJoin('team', 'team.id', 'teamMember.teamId')
      .select('team.name')
      .where('team.organizationId', '=', orgId)
      .where('teamMember.userId', '=', userId)
      .execute();
    return rows.map((r) => r.name);
  }

  /** The org member `userId`, or undefined when the user is not in the org. */
  async orgMember(orgId: string, userId: string): Promise<OrgMemberRecord | undefined> {
    const row = await this.#db
      .selectFrom('member')
      .innerJoin('user', 'user.id', 'member.userId')
      .select(['user.id', 'user.email', 'user.name'])
      .where('member.organizationId', '=', orgId)
      .where('member.userId', '=', userId)
      .executeTakeFirst();
    return row ? { userId: row.id, email: row.email, name: row.name } : undefined;
  }

  /** Creates a team in the org; its id. */
  async create(orgId: string, name: string): Promise<string> {
    const id = newId();
    const now = this.#now();
    await this.#db
      .insertInto('team')
      .values({ id, organizationId: orgId, name, memberCount: 0, createdAt: now, updatedAt: now })
      .execute();
    return id;
  }

  /** Renames a team. */
  async rename(id: string, name: string): Promise<void> {
    await this.#db.updateTable('team').set({ name, updatedAt: this.#now() }).where('id', '=', id).execute();
  }

  /** Removes a team of the org with its memberships. */
  async remove(orgId: string, id: string): Promise<void> {
    await this.#db.deleteFrom('teamMember').where('teamId', '=', id).execute();
    await this.#db.deleteFrom('team').where('organizationId', '=', orgId).where('id', '=', id).execute();
  }

  /** Adds a user to a team (the caller checked it is not a member yet). */
  async addMember(teamId: string, userId: string): Promise<void> {
    await this.#db
      .insertInto('teamMember')
      .values({ id: newId(), teamId, userId, membershipKey: membershipKey(teamId, userId), createdAt: this.#now() })
      .execute();
    await this.#syncCount(teamId);
  }

  /** Removes a user from a team; whether it was a member. */
  async removeMember(teamId: string, userId: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('teamMember')
      .where('teamId', '=', teamId)
      .where('userId', '=', userId)
      .executeTakeFirst();
    await this.#syncCount(teamId);
    return Number(result.numDeletedRows) > 0;
  }

  /** The plugin's member counter, set from the membership rows. */
  async #syncCount(teamId: string): Promise<void> {
    const row = await this.#db
      .selectFrom('teamMember')
      .select((eb) => eb.fn.count<number>('id').as('n'))
      .where('teamId', '=', teamId)
      .executeTakeFirst();
    await this.#db
      .updateTable('team')
      .set({ memberCount: Number(row?.n ?? 0) })
      .where('id', '=', teamId)
      .execute();
  }
}
