/**
 * `svc registry list|get`: the org's container registries (docs/api.md "Registries"). Reads only: registries are
 * created, changed, tested and deleted with a session (the UI or the API), never an API key (contract §5 rule 4),
 * and the CLI authenticates with an API key.
 */
import type { Command } from 'commander';
import type { Registry } from '../../client/answers.ts';
import { render, renderFields } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

/** Registers `svc registry` on `program`. */
export function registerRegistryCommands(program: Command): void {
  const registry = program
    .command('registry')
    .description('container registries of your org (managed with a session in the UI or the API, not with a key)');
  registry
    .command('list')
    .alias('ls')
    .description('the registries of your org')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/registries');
        print(
          render(answer, format, (a) => ({
            rows: a.registries ?? [],
            columns: [
              { header: 'name', value: (r: Registry) => r.name },
              { header: 'host', value: (r: Registry) => (r.insecure ? `http://${r.host}` : r.host) },
              { header: 'user', value: (r: Registry) => r.username ?? '' },
              { header: 'status', value: (r: Registry) => r.status },
              { header: 'id', value: (r: Registry) => r.id, wide: true },
              { header: 'tested', value: (r: Registry) => r.last_tested_at ?? '', wide: true },
            ],
            empty: 'No registries.',
          })),
        );
      }),
    );
  registry
    .command('get <name-or-id>')
    .description('one registry (never its password)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const wanted = argsOf(cmd)[0] as string;
        const { registries = [] } = await api.GET('/api/v1/registries');
        const found: Registry | undefined = registries.find((r) => r.name === wanted || r.id === wanted);
        // An unknown name asks the server by id, so the answer is the server's own 404.
        const one = found ?? (await api.GET('/api/v1/registries/{id}', { params: { path: { id: wanted } } }));
        print(
          render(one, format, (r) =>
            renderFields([
              ['Name', r.name],
              ['Id', r.id],
              ['Host', r.host],
              ['Plain http', r.insecure ? 'yes' : 'no'],
              ['User', r.username ?? ''],
              ['Password', r.has_password ? 'set (write-only)' : 'none'],
              ['Status', r.status_detail ? `${r.status} (${r.status_detail})` : r.status],
              ['Tested', r.last_tested_at ?? 'never'],
              ['Notifications', r.notification_url],
            ]),
          ),
        );
      }),
    );
}
