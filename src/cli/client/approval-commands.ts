/**
 * `svc approval-policy get|set|clear`: the org's approval policy (GET/PUT /approval-policy), which every App with
 * requiresApproval and no `syncPolicy.approval` of its own follows. `svc app approvals` shows one App's approvals.
 */
import type { Command } from 'commander';
import { CliError, EXIT } from './errors.ts';
import { render, renderFields } from './output.ts';
import { print, run, runtimeOf } from './runtime.ts';

type Policy = {
  count?: number;
  roles?: Array<'Owner' | 'Admin' | 'Contributor' | 'Viewer'>;
  teams?: string[];
  users?: string[];
  expiry?: string;
};

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function policyText(policy: Policy | null | undefined): string {
  if (!policy) return 'no org approval policy (one approval by anyone with deployment:sync, never the requester)\n';
  return renderFields([
    ['approvals', policy.count ?? 1],
    ['roles', (policy.roles ?? []).join(', ') || '-'],
    ['teams', (policy.teams ?? []).join(', ') || '-'],
    ['users', (policy.users ?? []).join(', ') || '-'],
    ['expiry', policy.expiry ?? '-'],
  ]);
}

/** The policy the `set` flags describe. */
function policyOf(opts: { count?: string; role: string[]; team: string[]; user: string[]; expiry?: string }): Policy {
  const count = opts.count === undefined ? undefined : Number(opts.count);
  if (count !== undefined && (!Number.isInteger(count) || count < 1)) {
    throw new CliError('--count must be a whole number ≥ 1', EXIT.usage);
  }
  return {
    ...(count !== undefined ? { count } : {}),
    ...(opts.role.length > 0 ? { roles: opts.role as Policy['roles'] } : {}),
    ...(opts.team.length > 0 ? { teams: opts.team } : {}),
    ...(opts.user.length > 0 ? { users: opts.user } : {}),
    ...(opts.expiry ? { expiry: opts.expiry } : {}),
  };
}

/** Registers `svc approval-policy` on `program`. */
export function registerApprovalCommands(program: Command): void {
  const cmd = program.command('approval-policy').description("the org's approval policy for held syncs");
  cmd
    .command('get')
    .description("show the org's approval policy")
    .action(
      run(async (c) => {
        const { api, format } = runtimeOf(c);
        const answer = await api.GET('/api/v1/approval-policy');
        print(render(answer, format, (a) => policyText(a.policy)));
      }),
    );
  cmd
    .command('set')
    .description("set the org's approval policy (org:manage)")
    .option('--count <n>', 'distinct approvals a held sync needs')
    .option('--role <role>', 'an org role whose members may approve (repeatable)', collect, [])
    .option('--team <team>', 'a team whose members may approve (repeatable)', collect, [])
    .option('--user <email>', 'a user who may approve (repeatable)', collect, [])
    .option('--expiry <duration>', 'drop a held sync not approved within this time (e.g. 24h)')
    .action(
      run(async (c) => {
        const { api, format } = runtimeOf(c);
        const body = { policy: policyOf(c.opts()) };
        const answer = await api.PUT('/api/v1/approval-policy', { body });
        print(render(answer, format, (a) => policyText(a.policy)));
      }),
    );
  cmd
    .command('clear')
    .description("remove the org's approval policy (org:manage)")
    .action(
      run(async (c) => {
        const { api, format } = runtimeOf(c);
        const answer = await api.PUT('/api/v1/approval-policy', { body: { policy: null } });
        print(render(answer, format, (a) => policyText(a.policy)));
      }),
    );
}
