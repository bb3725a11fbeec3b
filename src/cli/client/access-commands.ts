/**
 * `svc key …` (./key-commands.ts), `svc can-i`, `svc audit` and `svc binding …`: API keys (contract §4.1), the
 * permission check, the audit log (§4.5) and role bindings, over the REST API.
 */
import type { Command } from 'commander';
import { EXIT } from './errors.ts';
import { registerKeyCommands, scopeIdHelp, scopeOption } from './key-commands.ts';
import { render } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

interface CanI {
  allowed: boolean;
  via?: {
    source: string;
    role?: string;
    subject_type?: string;
    subject_id?: string;
    scope?: string;
    scope_id?: string;
    level?: string;
  }[];
  reason?: string;
}

/** `yes via role Owner, team abc: sync at deployment /shop` or `no: <reason>`. */
function canIWide(a: CanI): string {
  if (!a.allowed) return a.reason ? `no: ${a.reason}` : 'no';
  const grants = (a.via ?? []).map((g) =>
    g.source === 'role'
      ? `role ${g.role}`
      : `${g.subject_type} ${g.subject_id}: ${g.level} at ${g.scope === 'org' ? 'org' : `${g.scope} ${g.scope_id}`}`,
  );
  return grants.length > 0 ? `yes via ${grants.join(', ')}` : 'yes';
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
        const answer = await api.request<CanI>('POST', '/auth/can-i', {
          body: { permission, ...(scope ? { scope } : {}), ...(scopeId !== undefined ? { scope_id: scopeId } : {}) },
        });
        // -o wide says which role or binding (a team's, too) grants it, or why not.
        print(render(answer, format, (a, wide) => (wide ? canIWide(a) : a.allowed ? 'yes' : 'no')));
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
  registerBindingCommands(program);
}

/** `svc binding list|create|delete`. */
function registerBindingCommands(program: Command): void {
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
