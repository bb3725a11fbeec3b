/** `svc team …`: an org's teams and their members (docs/api.md "Teams"), over the REST API. */
import type { Command } from 'commander';
import type { TeamSummary } from '../../client/answers.ts';
import type { ApiClient } from './api.ts';
import { CliError, EXIT } from './errors.ts';
import { render, renderFields } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

/** The id of the team named or identified by `ref` (names are unique in an org). */
async function teamId(api: ApiClient, ref: string): Promise<string> {
  const { teams = [] } = await api.GET('/api/v1/teams');
  const team = teams.find((t) => t.id === ref) ?? teams.find((t) => t.name === ref);
  if (!team?.id) throw new CliError(`no team "${ref}" in your org`, EXIT.notFound);
  return team.id;
}

/** The path parameters of the team `ref` names. */
const teamPath = async (api: ApiClient, ref: string) => ({ path: { id: await teamId(api, ref) } });

/** Registers `svc team list|get|create|rename|delete|add-member|remove-member` on `program`. */
export function registerTeamCommands(program: Command): void {
  const team = program.command('team').description('teams: groups of members that hold role bindings together');
  team
    .command('list')
    .alias('ls')
    .description('the teams of your org')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/teams');
        print(
          render(answer, format, (a) => ({
            rows: a.teams ?? [],
            columns: [
              { header: 'name', value: (t: TeamSummary) => t.name },
              { header: 'id', value: (t: TeamSummary) => t.id },
              { header: 'members', value: (t: TeamSummary) => t.member_count },
              { header: 'created', value: (t: TeamSummary) => t.created_at, wide: true },
            ],
            empty: 'No teams.',
          })),
        );
      }),
    );
  team
    .command('get <team>')
    .description('a team (by name or id) with its members and role bindings')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const t = await api.GET('/api/v1/teams/{id}', { params: await teamPath(api, argsOf(cmd)[0] as string) });
        print(
          render(t, format, () =>
            renderFields([
              ['Name', t.name],
              ['Id', t.id],
              ['Members', (t.members ?? []).map((m) => `${m.email} (${m.user_id})`).join(', ') || '(none)'],
              [
                'Bindings',
                (t.bindings ?? [])
                  .map((b) => `${b.level} at ${b.scope === 'org' ? 'org' : `${b.scope} ${b.scope_id}`}`)
                  .join(', ') || '(none)',
              ],
            ]),
          ),
        );
      }),
    );
  team
    .command('create <name>')
    .description('create a team')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const t = await api.POST('/api/v1/teams', { body: { name: argsOf(cmd)[0] as string } });
        print(render(t, format, () => `team ${t.name} created (${t.id})`));
      }),
    );
  registerTeamChangeCommands(team);
}

/** `svc team rename|delete|add-member|remove-member`. */
function registerTeamChangeCommands(team: Command): void {
  team
    .command('rename <team> <new-name>')
    .description('rename a team')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [ref, name] = argsOf(cmd) as [string, string];
        const t = await api.PATCH('/api/v1/teams/{id}', { params: await teamPath(api, ref), body: { name } });
        print(render(t, format, () => `team ${ref} renamed to ${t.name}`));
      }),
    );
  team
    .command('delete <team>')
    .description('delete a team with its memberships and role bindings')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const ref = argsOf(cmd)[0] as string;
        const answer = await api.DELETE('/api/v1/teams/{id}', { params: await teamPath(api, ref) });
        print(render(answer, format, () => `team ${ref} deleted`));
      }),
    );
  team
    .command('add-member <team> <user-id>')
    .description('add a member of your org to a team')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [ref, userId] = argsOf(cmd) as [string, string];
        const m = await api.POST('/api/v1/teams/{id}/members', {
          params: await teamPath(api, ref),
          body: { user_id: userId },
        });
        print(render(m, format, () => `${m.email} added to team ${ref}`));
      }),
    );
  team
    .command('remove-member <team> <user-id>')
    .description('remove a user from a team')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [ref, userId] = argsOf(cmd) as [string, string];
        const answer = await api.DELETE('/api/v1/teams/{id}/members/{userId}', {
          params: { path: { id: await teamId(api, ref), userId } },
        });
        print(render(answer, format, () => `${userId} removed from team ${ref}`));
      }),
    );
}
