/**
 * `svc key …` (./key-commands.ts), `svc can-i`, `svc audit` and `svc binding …`: API keys (contract §4.1), the
 * permission check, the audit log (§4.5) and role bindings, over the REST API.
 */
import type { Command } from 'commander';
import type { AuditEntry, CanIAnswer, RequestBody, RoleBinding } from '../../client/answers.ts';
import { EXIT } from './errors.ts';
import { registerKeyCommands, scopeIdHelp, scopeOption } from './key-commands.ts';
import { render } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

type NewBinding = RequestBody<'/api/v1/role-bindings', 'post'>;
type CanIBody = RequestBody<'/api/v1/auth/can-i', 'post'>;

/** `yes via role Owner, team abc: sync at deployment /shop` or `no: <reason>`. */
function canIWide(a: CanIAnswer): string {
  if (!a.allowed) return a.reason ? `no: ${a.reason}` : 'no';
  const grants = (a.via ?? []).map((g) =>
    g.source === 'role'
      ? `role ${g.role}`
      : `${g.subject_type} ${g.subject_id}: ${g.level} at ${g.scope === 'org' ? 'org' : `${g.scope} ${g.scope_id}`}`,
  );
  return grants.length > 0 ? `yes via ${grants.join(', ')}` : 'yes';
}

/** Who acted: `Ada <ada@example.test>`, the bare id of a user who no longer exists, or `(system)` for svc itself. */
export function auditUser(e: AuditEntry): string {
  if (e.user_name) return e.user_email ? `${e.user_name} <${e.user_email}>` : e.user_name;
  return e.user_id || '(system)';
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
        const answer = await api.POST('/api/v1/auth/can-i', {
          // The server names the scopes it takes and which need a scope id (400, exit 2, otherwise).
          body: {
            permission: permission as string,
            ...(scope ? { scope } : {}),
            ...(scopeId !== undefined ? { scope_id: scopeId } : {}),
          } as CanIBody,
        });
        // -o wide says which role or binding (a team's, too) grants it, or why not.
        print(render(answer, format, (a, wide) => (wide ? canIWide(a) : a.allowed ? 'yes' : 'no')));
        if (!answer.allowed) process.exitCode = EXIT.failed;
      }),
    );

  program
    .command('audit')
    .description('the audit log of your org, newest first')
    .option('--limit <n>', 'entries per page (1..200)', '50')
    .option('--offset <n>', 'entries to skip', '0')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ limit: string; offset: string }>();
        const answer = await api.GET('/api/v1/audit', {
          params: { query: { limit: opts.limit, offset: opts.offset } },
        });
        print(
          render(answer, format, (a) => ({
            rows: a.entries ?? [],
            columns: [
              { header: 'id', value: (e: AuditEntry) => e.id, wide: true },
              { header: 'at', value: (e: AuditEntry) => e.created_at },
              { header: 'action', value: (e: AuditEntry) => e.action },
              { header: 'resource', value: (e: AuditEntry) => `${e.resource_type}/${e.resource_name}` },
              { header: 'user', value: auditUser },
              { header: 'user id', value: (e: AuditEntry) => e.user_id, wide: true },
              { header: 'details', value: (e: AuditEntry) => e.details, wide: true },
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
  const binding = program.command('binding').description('role bindings: a user or team granted a level at a scope');
  binding
    .command('list')
    .alias('ls')
    .description('the role bindings of your org')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/role-bindings');
        print(
          render(answer, format, (a) => ({
            rows: a.bindings ?? [],
            columns: [
              { header: 'id', value: (b: RoleBinding) => b.id },
              { header: 'subject', value: (b: RoleBinding) => `${b.subject_type}/${b.subject_id}` },
              { header: 'level', value: (b: RoleBinding) => b.level },
              { header: 'scope', value: (b: RoleBinding) => (b.scope === 'org' ? 'org' : `${b.scope} ${b.scope_id}`) },
              { header: 'created', value: (b: RoleBinding) => b.created_at, wide: true },
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
        // The server names the subject types, levels and scopes it takes (400, exit 2, otherwise).
        const created = await api.POST('/api/v1/role-bindings', {
          body: {
            subject_type: subjectType as NewBinding['subject_type'],
            subject_id: subjectId as string,
            level: level as NewBinding['level'],
            scope: opts.scope,
            ...(opts.scopeId !== undefined ? { scope_id: opts.scopeId } : {}),
          } as NewBinding,
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
        const answer = await api.DELETE('/api/v1/role-bindings/{id}', {
          params: { path: { id: argsOf(cmd)[0] as string } },
        });
        print(render(answer, format, () => `binding ${argsOf(cmd)[0]} deleted`));
      }),
    );
}
