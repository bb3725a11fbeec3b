/**
 * The team use-cases of /teams (docs/api.md "Teams"): `team:read` to read, `team:manage` to change, within the
 * caller's org. Every change and its audit entry (`team.create`, `team.update`, `team.delete`, `team.member.add`,
 * `team.member.remove`) commit in one transaction (src/store/teams.ts writes Better Auth's team tables).
 */
import { ConflictError, NotFoundError } from '../../core/errors.ts';
import type { TeamMemberRecord, TeamRecord } from '../../store/teams.ts';
import { TeamStore } from '../../store/teams.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';

const teamsOf = (ctx: UseCaseContext) => new TeamStore(ctx.services.store.db);

/** The org's team `id`; 404 outside the org. */
async function findTeam(ctx: UseCaseContext, id: string): Promise<TeamRecord> {
  const team = await teamsOf(ctx).get(ctx.actor.org.id, id);
  if (!team) throw new NotFoundError(`team ${id} not found`);
  return team;
}

/** 409 when the org has a team named `name`. */
async function refuseDuplicate(ctx: UseCaseContext, teams: TeamStore, name: string): Promise<void> {
  if (await teams.nameTaken(ctx.actor.org.id, name)) throw new ConflictError(`a team named "${name}" already exists`);
}

const teamAudit = (team: { id: string; name: string }, action: string, details?: Record<string, unknown>) => ({
  action,
  resourceType: 'team',
  resourceId: team.id,
  resourceName: team.name,
  ...(details ? { details } : {}),
});

/** The org's teams, by name. */
export const listTeams = useCase({
  permission: 'team:read',
  where: 'org',
  act: (ctx, _input: undefined) => teamsOf(ctx).list(ctx.actor.org.id),
});

/** One team with its members and role bindings. */
export const getTeam = useCase({
  permission: 'team:read',
  where: 'org',
  locate: (ctx, id: string) => findTeam(ctx, id),
  act: async (ctx, id, team) => ({
    team,
    members: await teamsOf(ctx).members(id),
    bindings: (await ctx.services.bindings.list(ctx.actor.org.id)).filter(
      (b) => b.subjectType === 'team' && b.subjectId === id,
    ),
  }),
});

/** Creates a team; 409 when the org has one of that name. */
export const createTeam = useCase({
  permission: 'team:manage',
  where: 'org',
  act: (ctx, input: { name: string }): Promise<TeamRecord> =>
    ctx.write(async (tx) => {
      const name = input.name.trim();
      await refuseDuplicate(ctx, tx.teams, name);
      const id = await tx.teams.create(ctx.actor.org.id, name);
      await tx.record(teamAudit({ id, name }, 'team.create'));
      return (await tx.teams.get(ctx.actor.org.id, id)) as TeamRecord;
    }),
});

/** Renames a team; 404 outside the org, 409 on a duplicate name. */
export const renameTeam = useCase({
  permission: 'team:manage',
  where: 'org',
  locate: (ctx, input: { id: string; name: string }) => findTeam(ctx, input.id),
  act: (ctx, input, before) =>
    ctx.write(async (tx) => {
      const name = input.name.trim();
      if (name !== before.name) await refuseDuplicate(ctx, tx.teams, name);
      await tx.teams.rename(before.id, name);
      await tx.record(teamAudit({ id: before.id, name }, 'team.update', { from: before.name, to: name }));
      return (await tx.teams.get(ctx.actor.org.id, before.id)) as TeamRecord;
    }),
});

/** Removes a team with its memberships and role bindings; 409 for the org's last team (Better Auth keeps one). */
export const deleteTeam = useCase({
  permission: 'team:manage',
  where: 'org',
  locate: (ctx, id: string) => findTeam(ctx, id),
  act: (ctx, _id, team) =>
    ctx.write(async (tx) => {
      if ((await tx.teams.count(ctx.actor.org.id)) <= 1) {
        throw new ConflictError("an organization keeps at least one team; this is the org's last");
      }
      await tx.teams.remove(ctx.actor.org.id, team.id);
      const bindings = await tx.bindings.unbindSubject(ctx.actor.org.id, 'team', team.id);
      await tx.record(teamAudit(team, 'team.delete', { bindings_removed: bindings }));
    }),
});

/** Adds an org member to a team; 404 when the team or the user is not in the org, 409 when already a member. */
export const addTeamMember = useCase({
  permission: 'team:manage',
  where: 'org',
  locate: (ctx, input: { id: string; userId: string }) => findTeam(ctx, input.id),
  act: (ctx, input, team): Promise<TeamMemberRecord> =>
    ctx.write(async (tx) => {
      const user = await tx.teams.orgMember(ctx.actor.org.id, input.userId);
      if (!user) throw new NotFoundError(`user ${input.userId} not found in this organization`);
      if ((await tx.teams.members(team.id)).some((m) => m.userId === input.userId)) {
        throw new ConflictError(`user ${input.userId} is already a member of team ${team.name}`);
      }
      await tx.teams.addMember(team.id, input.userId);
      await tx.record(teamAudit(team, 'team.member.add', { user_id: input.userId }));
      const added = (await tx.teams.members(team.id)).find((m) => m.userId === input.userId);
      return added ?? { ...user, addedAt: null };
    }),
});

/** Removes a user from a team; 404 when either is not there. */
export const removeTeamMember = useCase({
  permission: 'team:manage',
  where: 'org',
  locate: (ctx, input: { id: string; userId: string }) => findTeam(ctx, input.id),
  act: (ctx, input, team) =>
    ctx.write(async (tx) => {
      if (!(await tx.teams.removeMember(team.id, input.userId))) {
        throw new NotFoundError(`user ${input.userId} is not a member of team ${team.name}`);
      }
      await tx.record(teamAudit(team, 'team.member.remove', { user_id: input.userId }));
    }),
});
