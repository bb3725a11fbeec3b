/**
 * `svc store list|get|references|providers`: the org's secret stores (contract §4.4), read-only. Creating, changing,
 * deleting and testing stores needs `secretstore:manage`, which is session-only (contract §5 rule 4): the CLI holds an
 * API key, so it offers the reads and says where the rest is done.
 */
import type { Command } from 'commander';
import type { SecretStore, SecretStoreProvider, StoreReference } from '../../client/answers.ts';
import type { ApiClient } from './api.ts';
import { CliError, EXIT } from './errors.ts';
import { type Column, render, renderFields } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

/** Where a store is: its address (vault), recipient (age) or external-secrets store. */
const whereOf = (s: SecretStore) =>
  String(s.config?.['address'] ?? s.config?.['recipient'] ?? s.config?.['storeName'] ?? '');

const STORE_COLUMNS: Column<SecretStore>[] = [
  { header: 'id', value: (s) => s.id, wide: true },
  { header: 'name', value: (s) => s.name },
  { header: 'provider', value: (s) => `${s.type}/${s.provider}` },
  { header: 'status', value: (s) => s.status },
  { header: 'refs', value: (s) => s.references },
  { header: 'last tested', value: (s) => s.lastTestedAt ?? '' },
  { header: 'expires', value: (s) => s.credentialsExpireAt ?? '' },
  { header: 'where', value: whereOf, wide: true },
  { header: 'detail', value: (s) => s.statusDetail, wide: true },
];

/** What the CLI says about the routes it does not offer. */
export const SESSION_ONLY_NOTE =
  'creating, changing, deleting and testing secret stores needs a browser session (secretstore:manage is session-only): use the web UI or the API with a session cookie';

/** The path parameters of the store named by id (`sts_…`) or name; CliError (not found) otherwise. */
async function resolveStore(api: ApiClient, which: string): Promise<{ path: { id: string } }> {
  const { items = [] } = await api.GET('/api/v1/secret-stores');
  const found = items.find((s) => s.id === which || s.name === which);
  if (!found?.id) throw new CliError(`no secret store ${which}`, EXIT.notFound);
  return { path: { id: found.id } };
}

/** Registers `svc store …` on `program`. */
export function registerStoreCommands(program: Command): void {
  const store = program.command('store').description(`secret stores (read-only here; ${SESSION_ONLY_NOTE})`);
  store
    .command('list')
    .alias('ls')
    .description('the org’s secret stores, their status and how many Apps use each')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/secret-stores');
        print(
          render(answer, format, (a) => ({ rows: a.items ?? [], columns: STORE_COLUMNS, empty: 'No secret stores.' })),
        );
      }),
    );
  store
    .command('get <store>')
    .description('one store, by id or name (never its credentials)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const params = await resolveStore(api, argsOf(cmd)[0] as string);
        const answer = await api.GET('/api/v1/secret-stores/{id}', { params });
        print(
          render(answer, format, () =>
            renderFields([
              ['Name', answer.name],
              ['Id', answer.id],
              ['Provider', `${answer.type}/${answer.provider}`],
              ['Status', answer.statusDetail ? `${answer.status} (${answer.statusDetail})` : answer.status],
              ['Last tested', answer.lastTestedAt ?? 'never'],
              ['Credentials expire', answer.credentialsExpireAt ?? ''],
              ['Config', answer.config],
              ['Used by', `${answer.references} App use(s)`],
            ]),
          ),
        );
      }),
    );
  store
    .command('references <store>')
    .alias('refs')
    .description('the Apps using a store (env.store entries, SOPS decryption)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const params = await resolveStore(api, argsOf(cmd)[0] as string);
        const answer = await api.GET('/api/v1/secret-stores/{id}/references', { params });
        const columns: Column<StoreReference>[] = [
          { header: 'app', value: (r) => `${r.namespace}/${r.name}` },
          { header: 'cluster', value: (r) => r.cluster, wide: true },
          { header: 'usage', value: (r) => (r.env ? `${r.usage} ${r.env}` : r.usage) },
        ];
        print(render(answer, format, (a) => ({ rows: a.items ?? [], columns, empty: 'No App uses this store.' })));
      }),
    );
  store
    .command('providers')
    .description('the store types and providers the server registers')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/secret-stores/providers');
        const columns: Column<SecretStoreProvider>[] = [
          { header: 'type', value: (p) => p.type },
          { header: 'provider', value: (p) => p.provider },
          { header: 'tested', value: (p) => (p.testable ? 'yes' : 'no') },
          { header: 'description', value: (p) => p.description, wide: true },
        ];
        print(render(answer, format, (a) => ({ rows: a.items ?? [], columns })));
      }),
    );
}
