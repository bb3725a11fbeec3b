/** How teams look in the API: the presenters of /teams. */
import type { Static } from 'typebox';
import type { RoleBinding } from '../../store/role-bindings.ts';
import type { TeamMemberRecord, TeamRecord } from '../../store/teams.ts';
import type { Team, TeamBinding, TeamDetail, TeamMember } from './contract.ts';

/** A team, a member and a binding as /teams shows them. */
export type TeamView = Static<typeof Team>;
export type TeamMemberView = Static<typeof TeamMember>;
export type TeamBindingView = Static<typeof TeamBinding>;

export function teamView(t: TeamRecord): Static<typeof Team> {
  return { id: t.id, name: t.name, created_at: t.createdAt, updated_at: t.updatedAt, member_count: t.memberCount };
}

export function teamMemberView(m: TeamMemberRecord): Static<typeof TeamMember> {
  return { user_id: m.userId, email: m.email, name: m.name, added_at: m.addedAt };
}

/** A role binding of a team (the subject is the team). */
export function teamBindingView(b: RoleBinding): Static<typeof TeamBinding> {
  return {
    id: b.id,
    scope: b.scope as Static<typeof TeamBinding>['scope'],
    scope_id: b.scopeId,
    level: b.level as Static<typeof TeamBinding>['level'],
    created_at: b.createdAt,
  };
}

export function teamDetailView(d: {
  team: TeamRecord;
  members: TeamMemberRecord[];
  bindings: RoleBinding[];
}): Static<typeof TeamDetail> {
  return {
    ...teamView({ ...d.team, memberCount: d.members.length }),
    members: d.members.map(teamMemberView),
    bindings: d.bindings.map(teamBindingView),
  };
}
