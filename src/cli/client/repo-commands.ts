/**
 * `svc repo list|get|refs|charts`: the org's Git and Helm repositories (docs/api.md "Repositories"). Reads only:
 * repositories hold credentials and are created, changed, tested and deleted with a session (the UI or the API),
 * never an API key, and the CLI authenticates with an API key.
 */
import type { Command } from 'commander';
import type { ChartListing, Repository, RepositoryReference } from '../../client/answers.ts';
import type { SvcClient } from '../../client/client.ts';
import { heldCredentials } from '../../core/repository.ts';
import { render, renderFields } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

/** The repository named or with id `wanted`: from the list, else the server's own answer (its 404). */
async function find(api: SvcClient, wanted: string): Promise<Repository> {
  const { repositories = [] } = await api.GET('/api/v1/repositories');
  const found = repositories.find((r) => r.name === wanted || r.id === wanted);
  return found ?? (await api.GET('/api/v1/repositories/{id}', { params: { path: { id: wanted } } }));
}

/** Registers `svc repo` on `program`. */
export function registerRepoCommands(program: Command): void {
  const repo = program
    .command('repo')
    .description('Git and Helm repositories of your org (managed with a session in the UI or the API, not with a key)');
  repo
    .command('list')
    .alias('ls')
    .description('the repositories of your org')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/repositories');
        print(
          render(answer, format, (a) => ({
            rows: a.repositories ?? [],
            columns: [
              { header: 'name', value: (r: Repository) => r.name },
              { header: 'type', value: (r: Repository) => r.type },
              { header: 'url', value: (r: Repository) => r.url },
              { header: 'status', value: (r: Repository) => r.status },
              { header: 'credentials', value: (r: Repository) => heldCredentials(r), wide: true },
              { header: 'id', value: (r: Repository) => r.id, wide: true },
            ],
            empty: 'No repositories.',
          })),
        );
      }),
    );
  repo
    .command('get <name-or-id>')
    .description('one repository (never its secrets)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const one = await find(api, argsOf(cmd)[0] as string);
        print(
          render(one, format, (r) =>
            renderFields([
              ['Name', r.name],
              ['Id', r.id],
              ['Type', r.type],
              ['URL', r.url],
              ['Plain http', r.insecure ? 'yes' : 'no'],
              ['Credentials', heldCredentials(r)],
              ['Status', r.status_detail ? `${r.status} (${r.status_detail})` : r.status],
              ['Tested', r.last_tested_at ?? 'never'],
            ]),
          ),
        );
      }),
    );
  repo
    .command('refs <name-or-id>')
    .description('the Apps that use a repository (by repositoryRef, or covered by its URL)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const one = await find(api, argsOf(cmd)[0] as string);
        const answer = await api.GET('/api/v1/repositories/{id}/references', {
          params: { path: { id: one.id ?? '' } },
        });
        print(
          render(answer, format, (a) => ({
            rows: a.references ?? [],
            columns: [
              { header: 'app', value: (r: RepositoryReference) => r.app },
              { header: 'via', value: (r: RepositoryReference) => r.via },
            ],
            empty: `No App uses ${one.name}.`,
          })),
        );
      }),
    );
  repo
    .command('charts <name-or-id>')
    .description('the charts of a Helm repository and their versions, newest first (OCI: --chart)')
    .option('--chart <chart>', 'only this chart (an oci:// repository lists one chart at a time)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const one = await find(api, argsOf(cmd)[0] as string);
        const chart = cmd.opts()['chart'] as string | undefined;
        const answer = await api.GET('/api/v1/repositories/{id}/charts', {
          params: { path: { id: one.id ?? '' }, query: chart ? { chart } : {} },
        });
        print(
          render(answer, format, (a) => ({
            rows: a.charts ?? [],
            columns: [
              { header: 'chart', value: (c: ChartListing) => c.name },
              { header: 'newest', value: (c: ChartListing) => c.versions?.[0] ?? '' },
              { header: 'versions', value: (c: ChartListing) => (c.versions ?? []).join(', '), wide: true },
            ],
            empty: 'No charts.',
          })),
        );
      }),
    );
}
