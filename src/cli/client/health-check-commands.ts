/**
 * `svc health-check list|set|delete`: the org's custom health checks in CEL (docs/api.md "Health checks"; an App's
 * own checks live in its spec). `set` creates the check of an apiVersion and kind or replaces it; the server refuses
 * an expression that does not compile, naming the problem (exit 2).
 */
import type { Command } from 'commander';
import type { HealthCheck } from '../../client/answers.ts';
import { render, renderFields } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

const fields = (c: HealthCheck) =>
  renderFields([
    ['Id', c.id],
    ['API version', c.api_version],
    ['Kind', c.kind],
    ['In progress', c.in_progress ?? ''],
    ['Failed', c.failed ?? ''],
    ['Current', c.current],
    ['Updated', c.updated_at],
  ]);

/** Registers `svc health-check` on `program`. */
export function registerHealthCheckCommands(program: Command): void {
  const checks = program
    .command('health-check')
    .description("custom health checks of your org, in CEL (an App's own checks are in its spec)");
  checks
    .command('list')
    .alias('ls')
    .description('the health checks of your org')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/health-checks');
        print(
          render(answer, format, (a) => ({
            rows: a.health_checks,
            columns: [
              { header: 'api version', value: (c: HealthCheck) => c.api_version },
              { header: 'kind', value: (c: HealthCheck) => c.kind },
              { header: 'failed', value: (c: HealthCheck) => c.failed ?? '' },
              { header: 'current', value: (c: HealthCheck) => c.current },
              { header: 'in progress', value: (c: HealthCheck) => c.in_progress ?? '', wide: true },
              { header: 'id', value: (c: HealthCheck) => c.id, wide: true },
            ],
            empty: 'No health checks.',
          })),
        );
      }),
    );
  checks
    .command('set <apiVersion> <kind>')
    .description('create or replace the check of a kind; evaluated in the order in-progress, failed, current')
    .requiredOption('--current <cel>', 'true when the object is Healthy')
    .option('--in-progress <cel>', 'true while the object is Progressing')
    .option('--failed <cel>', 'true when the object is Degraded')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [apiVersion, kind] = argsOf(cmd) as [string, string];
        const opts = cmd.opts<{ current: string; inProgress?: string; failed?: string }>();
        const body = {
          api_version: apiVersion,
          kind,
          current: opts.current,
          ...(opts.inProgress ? { in_progress: opts.inProgress } : {}),
          ...(opts.failed ? { failed: opts.failed } : {}),
        };
        print(render(await api.POST('/api/v1/health-checks', { body }), format, fields));
      }),
    );
  checks
    .command('delete <apiVersion> <kind>')
    .description('delete the check of a kind')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [apiVersion, kind] = argsOf(cmd) as [string, string];
        const { health_checks } = await api.GET('/api/v1/health-checks');
        const found = health_checks.find((c) => c.api_version === apiVersion && c.kind === kind);
        // None for that kind: ask the server by the kind anyway, so the answer is its own 404.
        const id = found?.id ?? `${apiVersion}/${kind}`;
        const answer = await api.DELETE('/api/v1/health-checks/{id}', { params: { path: { id } } });
        print(render(answer, format, () => `health check for ${apiVersion} ${kind} deleted`));
      }),
    );
}
