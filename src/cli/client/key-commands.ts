/** `svc key create|list|revoke`: the caller's API keys (contract §4.1), including MCP tool allowlists. */
import { type Command, Option } from 'commander';
import type { ApiKey, RequestBody } from '../../client/answers.ts';
import { CliError, EXIT } from './errors.ts';
import { type Column, render } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

const KEY_COLUMNS: Column<ApiKey>[] = [
  { header: 'id', value: (k) => k.id, wide: true },
  { header: 'name', value: (k) => k.name },
  { header: 'prefix', value: (k) => k.prefix },
  { header: 'role', value: (k) => k.role },
  { header: 'scope', value: (k) => (k.scope === 'org' ? 'org' : `${k.scope} ${k.scope_id}`) },
  { header: 'tools', value: (k) => (k.tools ? k.tools.join(',') : '(all allowed)') },
  { header: 'expires', value: (k) => k.expires_at ?? 'never' },
  { header: 'last used', value: (k) => k.last_used_at ?? '', wide: true },
  { header: 'revoked', value: (k) => (k.revoked ? 'yes' : '') },
];

/** `--scope` for commands that take one (default org). */
export const scopeOption = () =>
  new Option('--scope <scope>', 'org, cluster or deployment').choices(['org', 'cluster', 'deployment']).default('org');
/** What `--scope-id` means. */
export const scopeIdHelp =
  'cluster name (scope cluster) or <cluster>/<namespace> (scope deployment; cluster empty = management)';

/** Registers `svc key create|list|revoke` on `program`. */
export function registerKeyCommands(program: Command): void {
  const key = program.command('key').description('API keys for automation and agents');
  key
    .command('create <name>')
    .description('mint an API key; its plaintext is printed once')
    .addOption(new Option('--role <role>', 'role ceiling').choices(['read', 'sync', 'admin']).makeOptionMandatory())
    .addOption(scopeOption())
    .option('--scope-id <id>', scopeIdHelp)
    .option('--expires-days <days>', 'days until it expires (0 = never)', '0')
    .option('--tools <tools>', 'MCP tool allowlist, comma-separated: the key then works on /api/v1/mcp only')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ role: string; scope: string; scopeId?: string; expiresDays: string; tools?: string }>();
        const expires = Number(opts.expiresDays);
        if (!Number.isInteger(expires) || expires < 0)
          throw new CliError('--expires-days must be a whole number ≥ 0', EXIT.usage);
        // commander checks --role and --scope against their choices, which are the server's.
        type NewKey = RequestBody<'/api/v1/auth/api-keys', 'post'>;
        const created = await api.POST('/api/v1/auth/api-keys', {
          body: {
            name: argsOf(cmd)[0] as string,
            role: opts.role as NewKey['role'],
            scope: opts.scope,
            ...(opts.scopeId !== undefined ? { scope_id: opts.scopeId } : {}),
            expires_days: expires,
            ...(opts.tools
              ? {
                  tools: opts.tools
                    .split(',')
                    .map((t) => t.trim())
                    .filter(Boolean) as NewKey['tools'],
                }
              : {}),
          } as NewKey,
        });
        print(
          render(
            created,
            format,
            () =>
              `API key ${created.name} created (${created.prefix}…, id ${created.id}). It is shown once:\n${created.key}`,
          ),
        );
      }),
    );
  key
    .command('list')
    .alias('ls')
    .description('your API keys in this org (prefix and metadata; never the key)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/auth/api-keys');
        print(render(answer, format, (a) => ({ rows: a.api_keys ?? [], columns: KEY_COLUMNS, empty: 'No API keys.' })));
      }),
    );
  key
    .command('revoke <key>')
    .description('revoke one of your keys, by id, prefix or name; it stops working at once')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [which] = argsOf(cmd) as [string];
        const { api_keys: keys = [] } = await api.GET('/api/v1/auth/api-keys');
        const live = keys.filter((k) => !k.revoked);
        const matches = live.filter((k) => k.id === which || k.prefix === which || k.name === which);
        if (matches.length === 0) throw new CliError(`no live API key ${which}`, EXIT.notFound);
        if (matches.length > 1)
          throw new CliError(`${matches.length} keys are named ${which}: revoke by id or prefix`, EXIT.usage);
        const target = matches[0] as ApiKey;
        const answer = await api.DELETE('/api/v1/auth/api-keys/{id}', { params: { path: { id: target.id ?? '' } } });
        print(render(answer, format, () => `API key ${target.name} (${target.prefix}…) revoked`));
      }),
    );
}
