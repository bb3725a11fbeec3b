/**
 * Turns request credentials into a Caller: the signed session cookie (verified, then looked up in the session table
 * so a revoked or expired session fails at once) or `Authorization: Bearer svc_…` (looked up by hash). Loads the
 * org, the member role and the role bindings the caller holds there.
 */
import type { Kysely } from 'kysely';
import { UnauthenticatedError } from '../core/errors.ts';
import type { Level, Scope } from '../core/permissions.ts';
import type { ApiKeyStore } from '../store/api-keys.ts';
import type { Tables } from '../store/database.ts';
import type { RoleBindingStore } from '../store/role-bindings.ts';
import type { Caller, CallerOrg } from './caller.ts';
import { orgRoleOfMember } from './roles.ts';
import { readCookie, verifySessionCookie } from './session-cookie.ts';

export interface AuthenticatorDeps {
  db: Kysely<Tables>;
  apiKeys: ApiKeyStore;
  bindings: RoleBindingStore;
  authSecret: string;
  sessionCookieName: string;
}

/** The credentials of one request, as the HTTP layer hands them over. */
export interface Credentials {
  cookie: string | undefined;
  authorization: string | undefined;
}

function toDate(value: Date | string | number): Date {
  return value instanceof Date ? value : new Date(value);
}

/** Authenticates requests. One instance per server; holds no per-request state. */
export class Authenticator {
  readonly #deps: AuthenticatorDeps;
  constructor(deps: AuthenticatorDeps) {
    this.#deps = deps;
  }

  /**
   * The caller behind the credentials. A Bearer header wins over a cookie. Throws UnauthenticatedError when there
   * are no credentials or they are invalid, expired or revoked.
   */
  async authenticate(creds: Credentials, now = new Date()): Promise<Caller> {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(creds.authorization ?? '')?.[1];
    if (bearer !== undefined) return this.#fromKey(bearer, now);
    const raw = readCookie(creds.cookie, this.#deps.sessionCookieName);
    if (raw !== undefined) return this.#fromSession(raw, now);
    throw new UnauthenticatedError('authentication required: a session cookie or an API key');
  }

  async #fromSession(raw: string, now: Date): Promise<Caller> {
    const token = verifySessionCookie(raw, this.#deps.authSecret);
    if (token === undefined) throw new UnauthenticatedError('invalid session');
    const session = await this.#deps.db
      .selectFrom('session')
      .select(['id', 'userId', 'expiresAt', 'activeOrganizationId'])
      .where('token', '=', token)
      .executeTakeFirst();
    if (!session || toDate(session.expiresAt).getTime() <= now.getTime()) {
      throw new UnauthenticatedError('session expired or revoked');
    }
    const caller = await this.#callerFor(session.userId, session.activeOrganizationId, 'session');
    caller.sessionId = session.id;
    return caller;
  }

  async #fromKey(key: string, now: Date): Promise<Caller> {
    const record = await this.#deps.apiKeys.findActive(key, now);
    if (!record) throw new UnauthenticatedError('invalid, expired or revoked API key');
    const caller = await this.#callerFor(record.userId, record.orgId, 'key');
    // A key belongs to one org; if its owner has left that org, the key grants nothing.
    if (caller.org?.id !== record.orgId) {
      caller.org = undefined;
      caller.role = undefined;
      caller.bindings = [];
    }
    caller.key = {
      id: record.id,
      role: record.role as Level,
      scope: record.scope as Scope,
      scopeId: record.scopeId,
      ...(record.tools ? { tools: record.tools } : {}),
    };
    return caller;
  }

  /** Loads the user, the org (preferred one if the user is a member, else the oldest membership) and grants. */
  async #callerFor(userId: string, preferredOrgId: string | null, kind: Caller['kind']): Promise<Caller> {
    const { db } = this.#deps;
    const user = await db
      .selectFrom('user')
      .select(['id', 'email', 'name'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user) throw new UnauthenticatedError('user no longer exists');
    const memberships = await db
      .selectFrom('member')
      .innerJoin('organization', 'organization.id', 'member.organizationId')
      .select(['member.role', 'member.createdAt', 'organization.id', 'organization.slug', 'organization.name'])
      .where('member.userId', '=', userId)
      .execute();
    memberships.sort((a, b) => toDate(a.createdAt).getTime() - toDate(b.createdAt).getTime());
    const membership = memberships.find((m) => m.id === preferredOrgId) ?? memberships[0];
    if (!membership) return { kind, user, org: undefined, role: undefined, bindings: [] };
    const org: CallerOrg = { id: membership.id, slug: membership.slug, name: membership.name };
    const teams = await db
      .selectFrom('teamMember')
      .innerJoin('team', 'team.id', 'teamMember.teamId')
      .select('team.id')
      .where('teamMember.userId', '=', userId)
      .where('team.organizationId', '=', org.id)
      .execute();
    const bindings = await this.#deps.bindings.forSubjects(
      org.id,
      userId,
      teams.map((t) => t.id),
    );
    return { kind, user, org, role: orgRoleOfMember(membership.role), bindings };
  }
}
