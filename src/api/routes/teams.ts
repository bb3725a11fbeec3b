/**
 * /teams (docs/api.md "Teams"): list, create, read, rename and delete an org's teams, and add or remove members.
 * Teams hold role bindings (/role-bindings with `subject_type: team`); a member's permissions include its teams'
 * bindings (`POST /auth/can-i` names the binding that grants).
 */
import { type Api, principalOf } from '../api.ts';
import { DELETED } from '../contract/schema.ts';
import type { ApiServices } from '../services.ts';
import * as contract from '../teams/contract.ts';
import * as teams from '../teams/use-cases.ts';
import { teamDetailView, teamMemberView, teamView } from '../teams/view.ts';
import { run } from '../use-case.ts';

/** Registers the /teams routes. */
export async function teamRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/teams', { schema: contract.listTeamsRoute }, async (request) => ({
    teams: (await run(services, teams.listTeams, principalOf(request), undefined)).map(teamView),
  }));

  api.post('/teams', { schema: contract.createTeamRoute }, async (request, reply) =>
    reply.code(201).send(teamView(await run(services, teams.createTeam, principalOf(request), request.body))),
  );

  api.get('/teams/:id', { schema: contract.getTeamRoute }, async (request) =>
    teamDetailView(await run(services, teams.getTeam, principalOf(request), request.params.id)),
  );

  api.patch('/teams/:id', { schema: contract.renameTeamRoute }, async (request) =>
    teamView(await run(services, teams.renameTeam, principalOf(request), { ...request.params, ...request.body })),
  );

  api.delete('/teams/:id', { schema: contract.deleteTeamRoute }, async (request) => {
    await run(services, teams.deleteTeam, principalOf(request), request.params.id);
    return DELETED;
  });

  api.post('/teams/:id/members', { schema: contract.addTeamMemberRoute }, async (request, reply) => {
    const input = { id: request.params.id, userId: request.body.user_id };
    return reply.code(201).send(teamMemberView(await run(services, teams.addTeamMember, principalOf(request), input)));
  });

  api.delete('/teams/:id/members/:userId', { schema: contract.removeTeamMemberRoute }, async (request) => {
    await run(services, teams.removeTeamMember, principalOf(request), request.params);
    return { removed: true };
  });
}
