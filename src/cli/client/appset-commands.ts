/**
 * `svc appset list|get|create|update|delete` (issue 27 item 1; docs/cli.md "AppSets"): the org's AppSets, each with
 * the Apps it generated and what it could not generate. `create -f` takes the create payload (`name`, `generators`,
 * `template`, `sync_policy`, `strategy`) or an AppSet manifest (`kind: AppSet`, as kubectl would apply it), YAML or JSON;
 * `update <name> -f` takes the same file and replaces that AppSet's generators, template and sync policy.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse } from 'yaml';
import type { AppSetCreate, AppSetUpdate, AppSetView } from '../../client/answers.ts';
import { appSetPayloadOf, appSetUpdateOf } from '../../core/appset-manifest.ts';
import { generatorKinds as kindsOf } from '../../core/appset-summary.ts';
import { CliError, EXIT } from './errors.ts';
import { render, renderFields } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

/** The kinds of an AppSet's generators (`list`, `matrix(clusters, gitDirectories)`…). */
function generatorKinds(set: AppSetView): string {
  return kindsOf(set.generators);
}

/** Where a rolling sync is: each step with its state and Apps, the current step marked, and why it stopped. */
export function rolloutText(set: AppSetView): string {
  const r = set.rollout;
  if (!set.strategy) return 'none (each App syncs on its own policy)';
  if (!r) return 'not started';
  const steps = r.steps.map((s) => {
    const what = s.unmatched ? ' (no step selects them)' : '';
    const mark = s.step === r.current_step ? ' (current)' : '';
    return `step ${s.step} ${s.state}: ${s.apps.join(', ') || '-'}${what}${mark}`;
  });
  const head = r.current_step === 0 ? 'done' : `at step ${r.current_step}`;
  const stop = r.stopped ? [`stopped at step ${r.stopped.step} by ${r.stopped.app}: ${r.stopped.reason}`] : [];
  // One line (the field renderer folds lines): the steps in order, then the stop.
  return [head, ...steps, ...stop].join('; ');
}

const fields = (set: AppSetView) =>
  renderFields([
    ['Name', set.name],
    ['Generators', generatorKinds(set)],
    ['App name', set.template.metadata.name],
    ['Apps sync', set.sync_policy.applicationsSync ?? 'sync'],
    ['Preserve resources', set.sync_policy.preserveResourcesOnDeletion === true ? 'yes' : 'no'],
    ['Generated', set.generated ? 'yes' : 'not yet'],
    ['Apps', set.apps.map((a) => `${a.name} (${a.sync_status || '-'}, ${a.health || '-'})`).join('\n') || 'none'],
    ['Rolling sync', rolloutText(set)],
    ['Errors', set.errors.join('\n') || 'none'],
    ['Created', set.created_at],
  ]);

/** The create payload in `file`: a payload as is, or an AppSet manifest turned into one (core/appset-manifest.ts). */
export function appSetPayload(file: string): AppSetCreate {
  return appSetPayloadOf(readDocument(file)) as AppSetCreate;
}

/** The one object `file` (or stdin, `-`) holds, YAML or JSON. */
function readDocument(file: string): Record<string, unknown> {
  const parsed: unknown = parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CliError(`${file} must hold one AppSet (an object)`, EXIT.usage);
  }
  return parsed as Record<string, unknown>;
}

/** The update payload in `file` for the AppSet `name` (the same file `create` takes; it never renames). */
export function appSetUpdatePayload(file: string, name: string): AppSetUpdate {
  const update = appSetUpdateOf(readDocument(file), name);
  if ('problem' in update) throw new CliError(`${file}: ${update.problem}`, EXIT.usage);
  return update.body as AppSetUpdate;
}

/** Registers `svc appset` on `program`. */
export function registerAppSetCommands(program: Command): void {
  const sets = program.command('appset').description('AppSets: many Apps from one template and its generators');
  sets
    .command('list')
    .alias('ls')
    .description('the AppSets of your org')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/appsets');
        print(
          render(answer, format, (a) => ({
            rows: a.appsets,
            columns: [
              { header: 'name', value: (s: AppSetView) => s.name },
              { header: 'generators', value: generatorKinds },
              { header: 'apps', value: (s: AppSetView) => String(s.apps.length) },
              { header: 'errors', value: (s: AppSetView) => String(s.errors.length) },
              { header: 'apps sync', value: (s: AppSetView) => s.sync_policy.applicationsSync ?? 'sync', wide: true },
              { header: 'created', value: (s: AppSetView) => s.created_at, wide: true },
            ],
            empty: 'No AppSets.',
          })),
        );
      }),
    );
  sets
    .command('get <name>')
    .description('an AppSet, the Apps it generated and its errors')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [name] = argsOf(cmd) as [string];
        print(render(await api.GET('/api/v1/appsets/{name}', { params: { path: { name } } }), format, fields));
      }),
    );
  sets
    .command('create')
    .description('create an AppSet from a file: the create payload or an AppSet manifest (YAML or JSON)')
    .requiredOption('-f, --file <file>', 'the AppSet (- for stdin)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const body = appSetPayload(cmd.opts<{ file: string }>().file);
        print(render(await api.POST('/api/v1/appsets', { body }), format, fields));
      }),
    );
  sets
    .command('update <name>')
    .description("replace an AppSet's generators, template and sync policy from a file (as create takes it)")
    .requiredOption('-f, --file <file>', 'the AppSet (- for stdin)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [name] = argsOf(cmd) as [string];
        const body = appSetUpdatePayload(cmd.opts<{ file: string }>().file, name);
        print(render(await api.PUT('/api/v1/appsets/{name}', { params: { path: { name } }, body }), format, fields));
      }),
    );
  sets
    .command('delete <name>')
    .description('delete an AppSet and the Apps it generated')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [name] = argsOf(cmd) as [string];
        const answer = await api.DELETE('/api/v1/appsets/{name}', { params: { path: { name } } });
        print(render(answer, format, () => `appset ${name} deleted (its Apps are deleted with it)`));
      }),
    );
}
