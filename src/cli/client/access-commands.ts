/**
 * `svc key …`, `svc can-i`, `svc audit` and `svc binding …`: API keys (contract §4.1), the permission check, the
 * audit log (§4.5) and role bindings, over the REST API.
 */
import { type Command, Option } from 'commander';
import { CliError, EXIT } from './errors.ts';
import { type Column, render } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  role: string;
  scope: string;
  scope_id: string;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked: boolean;
  tools: string[] | null;
  key?: string;
}

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

const scopeOption = () =>
  new Option('--scope <scope>', 'org, cluster or deployment').choices(['org', 'cluster', 'deployment']).default('org');
const scopeIdHelp =
  'cluster name (scope cluster) or <cluster>/<namespace> (scope deployment; cluster empty = management)';

function registerKeyCommands(program: Command): void {
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
        const created = await api.request<ApiKey>('POST', '/auth/api-keys', {
          body: {
            name: argsOf(cmd)[0],
            role: opts.role,
            scope: opts.scope,
            ...(opts.scopeId !== undefined ? { scope_id: opts.scopeId } : {}),
            expires_days: expires,
            ...(opts.tools
              ? {
                  tools: opts.tools
                    .split(',')
                    .map((t) => t.trim())
                    .filter(Boolean),
                }
              : {}),
          },
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
        const answer = await api.request<{ api_keys: ApiKey[] }>('GET', '/auth/api-keys');
        print(render(answer, format, (a) => ({ rows: a.api_keys, columns: KEY_COLUMNS, empty: 'No API keys.' })));
      }),
    );
  key
    .command('revoke <key>')
    .description('revoke one of your keys, by id, prefix or name; it stops working at once')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [which] = argsOf(cmd) as [string];
        const { api_keys: keys } = await api.request<{ api_keys: ApiKey[] }>('GET', '/auth/api-keys');
        const live = keys.filter((k) => !k.revoked);
        const matches = live.filter((k) => k.id === which || k.prefix === which || k.name === which);
        if (matches.length === 0) throw new CliError(`no live API key ${which}`, EXIT.notFound);
        if (matches.length > 1)
          throw new CliError(`${matches.length} keys are named ${which}: revoke by id or prefix`, EXIT.usage);
        const target = matches[0] as ApiKey;
        const answer = await api.request('DELETE', `/auth/api-keys/${encodeURIComponent(target.id)}`);
        print(render(answer, format, () => `API key ${target.name} (${target.prefix}…) revoked`));
      }),
    );
}

/** Registers key, can-i, audit and binding on `program`. */
export function registerAccessCommands(program: Command): void {
  registerKeyCommands(program);

  program
    .command('can-i <permission> [scope] [scope-id]')
    .description(
      `whether your credentials hold a permission (e.g. deployment:sync) at a scope; exit 0 yes, 1 no. scope-id: ${scopeIdHelp}`,
    )
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [permission, scope, scopeId] = argsOf(cmd);
        const answer = await api.request<{ allowed: boolean }>('POST', '/auth/can-i', {
          body: { permission, ...(scope ? { scope } : {}), ...(scopeId !== undefined ? { scope_id: scopeId } : {}) },
        });
        print(render(answer, format, () => (answer.allowed ? 'yes' : 'no')));
        if (!answer.allowed) process.exitCode = EXIT.failed;
      }),
    );

  type Entry = {
    id: number;
    created_at: string;
    user_id: string;
    action: string;
    resource_type: string;
    resource_name: string;
    details: Record<string, unknown>;
  };
  program
    .command('audit')
    .description('the audit log of your org, newest first')
    .option('--limit <n>', 'entries per page (1..200)', '50')
    .option('--offset <n>', 'entries to skip', '0')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ limit: string; offset: string }>();
        const answer = await api.request<{ entries: Entry[] }>('GET', '/audit', {
          query: { limit: opts.limit, offset: opts.offset },
        });
        print(
          render(answer, format, (a) => ({
            rows: a.entries,
            columns: [
              { header: 'id', value: (e: Entry) => e.id, wide: true },
              { header: 'at', value: (e: Entry) => e.created_at },
              { header: 'action', value: (e: Entry) => e.action },
              { header: 'resource', value: (e: Entry) => `${e.resource_type}/${e.resource_name}` },
              { header: 'user', value: (e: Entry) => e.user_id || '(system)' },
              { header: 'details', value: (e: Entry) => e.details, wide: true },
            ],
            empty: 'No audit entries.',
          })),
        );
      }),
    );

  type Binding = {
    id: string;
    subject_type: string;
    subject_id: string;
    scope: string;
    scope_id: string;
    level: string;
    created_at: string;
  };
  const binding = program.command('binding').description('role bindings: a user or team granted a level at a scope');
  binding
    .command('list')
    .alias('ls')
    .description('the role bindings of your org')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.request<{ bindings: Binding[] }>('GET', '/role-bindings');
        print(
          render(answer, format, (a) => ({
            rows: a.bindings,
            columns: [
              { header: 'id', value: (b: Binding) => b.id },
              { header: 'subject', value: (b: Binding) => `${b.subject_type}/${b.subject_id}` },
              { header: 'level', value: (b: Binding) => b.level },
              { header: 'scope', value: (b: Binding) => (b.scope === 'org' ? 'org' : `${b.scope} ${b.scope_id}`) },
              { header: 'created', value: (b: Binding) => b.created_at, wide: true },
            ],
            empty: 'No role bindings.',
          })),
        );
      }),
    );
  binding
    .command('create <subject-type> <subject-id> <level>')
    .description('grant user or team <subject-id> a level (read, sync, admin) at a scope')
    .addOption(scopeOption())
    .option('--scope-id <id>', scopeIdHelp)
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [subjectType, subjectId, level] = argsOf(cmd);
        const opts = cmd.opts<{ scope: string; scopeId?: string }>();
        const created = await api.request<Binding>('POST', '/role-bindings', {
          body: {
            subject_type: subjectType,
            subject_id: subjectId,
            level,
            scope: opts.scope,
            ...(opts.scopeId !== undefined ? { scope_id: opts.scopeId } : {}),
          },
        });
        print(render(created, format, () => `binding ${created.id} created`));
      }),
    );
  binding
    .command('delete <id>')
    .description('remove a role binding')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.request('DELETE', `/role-bindings/${encodeURIComponent(argsOf(cmd)[0] as string)}`);
        print(render(answer, format, () => `binding ${argsOf(cmd)[0]} deleted`));
      }),
    );
}
