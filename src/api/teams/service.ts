/**
 * The team use-cases of /teams (docs/api.md "Teams"). Teams live in Better Auth's organization plugin: creating and
 * removing one goes through the plugin's own server API (its hooks audit `team.create` and `team.delete` and remove
 * the team's role bindings), renaming and membership through the plugin's data layer (the same writes its routes
 * make), audited here as `team.update`, `team.member.add` and `team.member.remove`. Every use-case is authorized
 * with svc's permissions (`team:read`, `team:manage`) and sees only the caller's org.
 */
import { actingAs } from '../../auth/acting-user.ts';
import { orgAdapterOf } from '../../auth/better-auth.ts';
import { ConflictError, InputError, NotFoundError } from '../../core/errors.ts';
import type { RoleBinding } from '../../store/role-bindings.ts';
import type { Actor } from '../actor.ts';
import { requirePermission } from '../context.ts';
import type { ApiServices } from '../services.ts';

/** A team member as /teams shows it. */
export interface TeamMemberView {
  user_id: string;
  email: string;
  name: string;
  added_at: string | null;
}

/** A team as /teams shows it. */
export interface TeamView {
  id: string;
  name: string;
  created_at: string;
  updated_at: string | null;
  member_count: number;
}

/** A role binding of a team as GET /teams/{id} shows it (the subject is the team). */
export function teamBindingView(b: RoleBinding) {
  return { id: b.id, scope: b.scope, scope_id: b.scopeId, level: b.level, created_at: b.createdAt };
}

/** A role binding of a team as the API shows it. */
export type TeamBindingView = ReturnType<typeof teamBindingView>;

const iso = (v: Date | string | number | null | undefined): string | null =>
  v === null || v === undefined ? null : (v instanceof Date ? v : new Date(v)).toISOString();

/** A team name: 1–100 characters once trimmed. */
function teamName(raw: string): string {
  const name = raw.trim();
  if (name === '' || name.length > 100) throw new InputError('name must be 1 to 100 characters');
  return name;
}

export class TeamService {
  readonly #services: ApiServices;
  constructor(services: ApiServices) {
    this.#services = services;
  }

  /** The org's teams, by name (`team:read`). */
  async list(actor: Actor): Promise<TeamView[]> {
    requirePermission(actor, 'team:read');
    const teams = await this.#services.store.db
      .selectFrom('team')
      .leftJoin('teamMember', 'teamMember.teamId', 'team.id')
      .select(['team.id', 'team.name', 'team.createdAt', 'team.updatedAt'])
      .select((eb) => eb.fn.count<number>('teamMember.id').as('members'))
      .where('team.organizationId', '=', actor.org.id)
      .groupBy(['team.id', 'team.name', 'team.createdAt', 'team.updatedAt'])
      .execute();
    return teams
      .map((t) => ({
        id: t.id,
        name: t.name,
        created_at: iso(t.createdAt) ?? '',
        updated_at: iso(t.updatedAt),
        member_count: Number(t.members),
      }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  /** One team with its members and role bindings (`team:read`); 404 outside the org. */
  async get(actor: Actor, id: string): Promise<TeamView & { members: TeamMemberView[]; bindings: RoleBinding[] }> {
    requirePermission(actor, 'team:read');
    const team = await this.#team(actor, id);
    const members = await this.#members(id);
    const bindings = (await this.#services.bindings.list(actor.org.id)).filter(
      (b) => b.subjectType === 'team' && b.subjectId === id,
    );
    return { ...team, member_count: members.length, members, bindings };
  }

  /** Creates a team (`team:manage`); 409 when the org has one of that name. Audited `team.create` by the hook. */
  async create(actor: Actor, rawName: string): Promise<TeamView> {
    requirePermission(actor, 'team:manage');
    const name = teamName(rawName);
    await this.#refuseDuplicate(actor, name);
    const created = await actingAs(actor.caller.user.id, () =>
      this.#services.auth.api.createTeam({ body: { name, organizationId: actor.org.id } }),
    );
    return this.#team(actor, created.id);
  }

  /** Renames a team (`team:manage`); 404 outside the org, 409 on a duplicate name; audited `team.update`. */
  async rename(actor: Actor, id: string, rawName: string): Promise<TeamView> {
    requirePermission(actor, 'team:manage');
    const before = await this.#team(actor, id);
    const name = teamName(rawName);
    if (name !== before.name) await this.#refuseDuplicate(actor, name);
    const adapter = await orgAdapterOf(this.#services.auth);
    await adapter.updateTeam(id, { name });
    await this.#audit(actor, 'team.update', id, name, { from: before.name, to: name });
    return this.#team(actor, id);
  }

  /**
   * Removes a team (`team:manage`) with its memberships and role bindings; 404 outside the org, 409 for the org's
   * last team (Better Auth keeps one). Audited `team.delete` by the hook.
   */
  async remove(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'team:manage');
    await this.#team(actor, id);
    const teams = await this.#services.store.db
      .selectFrom('team')
      .select('id')
      .where('organizationId', '=', actor.org.id)
      .execute();
    if (teams.length <= 1) throw new ConflictError("an organization keeps at least one team; this is the org's last");
    await actingAs(actor.caller.user.id, () =>
      this.#services.auth.api.removeTeam({ body: { teamId: id, organizationId: actor.org.id } }),
    );
  }

  /**
   * Adds an org member to a team (`team:manage`); 404 when the team or the user is not in the org, 409 when the
   * user is in the team already. Audited `team.member.add`.
   */
  async addMember(actor: Actor, id: string, userId: string): Promise<TeamMemberView> {
    requirePermission(actor, 'team:manage');
    const team = await this.#team(actor, id);
    const member = await this.#services.store.db
      .selectFrom('member')
      .innerJoin('user', 'user.id', 'member.userId')
      .select(['user.id', 'user.email', 'user.name'])
      .where('member.organizationId', '=', actor.org.id)
      .where('member.userId', '=', userId)
      .executeTakeFirst();
    if (!member) throw new NotFoundError(`user ${userId} not found in this organization`);
    if ((await this.#members(id)).some((m) => m.user_id === userId)) {
      throw new ConflictError(`user ${userId} is already a member of team ${team.name}`);
    }
    const adapter = await orgAdapterOf(this.#services.auth);
    await adapter.findOrCreateTeamMember({ teamId: id, userId });
    await this.#audit(actor, 'team.member.add', id, team.name, { user_id: userId });
    const added = (await this.#members(id)).find((m) => m.user_id === userId);
    return added ?? { user_id: member.id, email: member.email, name: member.name, added_at: null };
  }

  /** Removes a user from a team (`team:manage`); 404 when either is not there. Audited `team.member.remove`. */
  async removeMember(actor: Actor, id: string, userId: string): Promise<void> {
    requirePermission(actor, 'team:manage');
    const team = await this.#team(actor, id);
    if (!(await this.#members(id)).some((m) => m.user_id === userId)) {
      throw new NotFoundError(`user ${userId} is not a member of team ${team.name}`);
    }
    const adapter = await orgAdapterOf(this.#services.auth);
    await adapter.removeTeamMember({ teamId: id, userId });
    await this.#audit(actor, 'team.member.remove', id, team.name, { user_id: userId });
  }

  async #team(actor: Actor, id: string): Promise<TeamView> {
    const t = await this.#services.store.db
      .selectFrom('team')
      .select(['id', 'name', 'createdAt', 'updatedAt'])
      .where('organizationId', '=', actor.org.id)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!t) throw new NotFoundError(`team ${id} not found`);
    const count = await this.#services.store.db
      .selectFrom('teamMember')
      .select((eb) => eb.fn.count<number>('id').as('n'))
      .where('teamId', '=', id)
      .executeTakeFirst();
    return {
      id: t.id,
      name: t.name,
      created_at: iso(t.createdAt) ?? '',
      updated_at: iso(t.updatedAt),
      member_count: Number(count?.n ?? 0),
    };
  }

  async #members(teamId: string): Promise<TeamMemberView[]> {
    const rows = await this.#services.store.db
      .selectFrom('teamMember')
      .innerJoin('user', 'user.id', 'teamMember.userId')
      .select(['user.id', 'user.email', 'user.name', 'teamMember.createdAt'])
      .where('teamMember.teamId', '=', teamId)
      .execute();
    return rows
      .map((r) => ({ user_id: r.id, email: r.email, name: r.name, added_at: iso(r.createdAt) }))
      .sort((a, b) => a.email.localeCompare(b.email));
  }

  async #refuseDuplicate(actor: Actor, name: string): Promise<void> {
    const taken = await this.#services.store.db
      .selectFrom('team')
      .select('id')
      .where('organizationId', '=', actor.org.id)
      .where('name', '=', name)
      .executeTakeFirst();
    if (taken) throw new ConflictError(`a team named "${name}" already exists`);
  }

  async #audit(actor: Actor, action: string, id: string, name: string, details: Record<string, unknown>) {
    await this.#services.audit.record({
      orgId: actor.org.id,
      userId: actor.caller.user.id,
      action,
      resourceType: 'team',
      resourceId: id,
      resourceName: name,
      details,
    });
  }
}
