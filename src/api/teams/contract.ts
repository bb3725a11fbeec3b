/**
 * The contract of /teams (docs/api.md "Teams"): list, create, read, rename and delete an org's teams, and add or
 * remove members. Teams hold role bindings (/role-bindings with `subject_type: team`).
 */
import { Type } from 'typebox';
import { LEVELS, SCOPES } from '../../core/permissions.ts';
import { errors } from '../contract/errors.ts';
import {
  component,
  Deleted,
  extended,
  IdParams,
  Nullable,
  PathId,
  ref,
  StringEnum,
  Timestamp,
} from '../contract/schema.ts';

export const Team = component(
  'Team',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      created_at: Timestamp(),
      updated_at: Nullable(Timestamp()),
      member_count: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
);

export const TeamMember = component(
  'TeamMember',
  Type.Object(
    { user_id: Type.String(), email: Type.String(), name: Type.String(), added_at: Nullable(Timestamp()) },
    { additionalProperties: false },
  ),
);

export const TeamBinding = component(
  'TeamBinding',
  Type.Object(
    {
      id: Type.String(),
      scope: StringEnum(SCOPES),
      scope_id: Type.String(),
      level: StringEnum(LEVELS),
      created_at: Timestamp(),
    },
    { additionalProperties: false, description: 'a role binding held by the team' },
  ),
);

export const TeamDetail = extended('TeamDetail', Team, {
  members: Type.Array(ref(TeamMember)),
  bindings: Type.Array(ref(TeamBinding)),
});

/** A team name: 1–100 characters, not only spaces (it is stored trimmed). */
const TeamName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'stored trimmed' });

export const TeamNameBody = component('TeamNameBody', Type.Object({ name: TeamName }, { additionalProperties: false }));

const MEANINGS = {
  404: 'no such team (or user) in this organization',
  409: 'a team of that name exists, the user is already a member, or the org would lose its last team',
};
const tags = ['teams'];
const TeamMemberParams = Type.Object({ id: PathId('team id'), userId: PathId('user id') });

export const listTeamsRoute = {
  tags,
  summary: "The caller org's teams (team:read)",
  response: {
    200: Type.Object({ teams: Type.Array(ref(Team)) }, { additionalProperties: false }),
    ...errors(),
  },
};
export const createTeamRoute = {
  tags,
  summary: 'Create a team (team:manage; audited team.create)',
  body: ref(TeamNameBody),
  response: { 201: ref(Team), ...errors({ 409: MEANINGS[409] }) },
};
export const getTeamRoute = {
  tags,
  summary: 'A team with its members and role bindings (team:read)',
  params: IdParams,
  response: { 200: ref(TeamDetail), ...errors({ 404: MEANINGS[404] }) },
};
export const renameTeamRoute = {
  tags,
  summary: 'Rename a team (team:manage; audited team.update)',
  params: IdParams,
  body: ref(TeamNameBody),
  response: { 200: ref(Team), ...errors(MEANINGS) },
};
export const deleteTeamRoute = {
  tags,
  summary:
    "Delete a team, its memberships and its role bindings (team:manage; audited team.delete); 409 for the org's last",
  params: IdParams,
  response: { 200: ref(Deleted), ...errors(MEANINGS) },
};
export const addTeamMemberRoute = {
  tags,
  summary: 'Add a member of the org to the team (team:manage; audited team.member.add)',
  params: IdParams,
  body: Type.Object({ user_id: PathId('user id') }, { additionalProperties: false }),
  response: { 201: ref(TeamMember), ...errors(MEANINGS) },
};
export const removeTeamMemberRoute = {
  tags,
  summary: 'Remove a user from the team (team:manage; audited team.member.remove)',
  params: TeamMemberParams,
  response: {
    200: Type.Object({ removed: Type.Boolean() }, { additionalProperties: false }),
    ...errors({ 404: MEANINGS[404] }),
  },
};

export const TEAM_COMPONENTS = [Team, TeamMember, TeamBinding, TeamDetail, TeamNameBody];
