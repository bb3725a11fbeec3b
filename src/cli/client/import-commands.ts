/**
 * `svc import -f <file|dir> | --from-cluster <name> | --from-management [--apply [--let-go-cluster <c>]]` and
 * `svc import confirm|undo <app> -n <ns>` (docs/cli.md "Import", docs/migrate.md): sends Argo CD and Flux objects read
 * from YAML files (a directory: every .yaml, .yml and .json file below it) to POST /api/v1/import, or has the server
 * read them from a cluster, and shows, per object, what it becomes or why not. A dry-run unless --apply; with --apply,
 * exit 1 when some object could not be
 * created.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { ImportEntry, ImportReport } from '../../client/answers.ts';
import { CliError, EXIT } from './errors.ts';
import { render } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

const MANIFEST = /\.(ya?ml|json)$/i;

/** The files `path` names: itself, or every manifest file below it (hidden entries skipped), in path order. */
async function manifestFiles(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new CliError(`${path}: no such file or directory`, EXIT.usage);
  if (!info.isDirectory()) return [path];
  const files: string[] = [];
  for (const entry of (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.')) continue;
    const full = join(path, entry.name);
    if (entry.isDirectory()) files.push(...(await manifestFiles(full)));
    else if (MANIFEST.test(entry.name)) files.push(full);
  }
  return files;
}

/** The YAML text of every file under the paths, one document stream. */
export async function readDocuments(paths: readonly string[]): Promise<string> {
  const texts: string[] = [];
  for (const path of paths) {
    for (const file of await manifestFiles(path)) texts.push(await readFile(file, 'utf8'));
  }
  if (texts.length === 0) throw new CliError('no .yaml, .yml or .json files to import', EXIT.usage);
  return texts.join('\n---\n');
}

const objectOf = (e: ImportEntry) =>
  `${e.object.kind}/${e.object.namespace ? `${e.object.namespace}/` : ''}${e.object.name}`;
const unsupported = (e: ImportEntry) => e.fields.filter((f) => f.status === 'unsupported');

/** The report as a table, then its summary line. */
function table(report: ImportReport, wide: boolean): string {
  const rows = report.entries.map((e) => [
    objectOf(e),
    e.result,
    e.becomes
      ? `${e.becomes.kind} ${e.becomes.name}`
      : (e.partOf ?? []).map((p) => `part of ${p.kind} ${p.name}`).join(', '),
    ...(report.applied ? [appliedOf(e)] : []),
    e.reason ??
      (wide
        ? unsupported(e)
            .map((f) => `${f.field} (${f.note ?? ''})`)
            .join('; ')
        : countOf(e)),
  ]);
  const header = ['OBJECT', 'RESULT', 'BECOMES', ...(report.applied ? ['APPLIED'] : []), 'WHY / UNSUPPORTED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('   ')
      .trimEnd();
  const s = report.summary;
  const applied = report.applied
    ? `; created ${s.created}, failed ${s.failed}`
    : ' (dry-run: nothing created; --apply creates)';
  return `${[line(header), ...rows.map(line)].join('\n')}\n\n${sourceLines(report)}${s.objects} objects: ${s.mapped} mapped, ${s.partial} partial, ${s.unmapped} unmapped → ${s.apps} apps, ${s.appsets} appsets, ${s.repositories} repositories, ${s.registries} registries${applied}\n`;
}

/** What the server read from a cluster: where, and the kinds it does not serve or the credentials may not read. */
function sourceLines(report: ImportReport): string {
  const src = report.source;
  if (!src) return '';
  const where = src.cluster === '' ? 'the management cluster' : `cluster ${src.cluster}`;
  const lines = [
    `read from ${where}, ${src.namespaces.length === 0 ? 'every namespace' : `namespaces ${src.namespaces.join(', ')}`}`,
    ...(src.not_served.length > 0 ? [`not served there: ${src.not_served.join(', ')}`] : []),
    ...src.notes,
  ];
  return `${lines.join('\n')}\n`;
}

/** The request body of the options: files, or a cluster to read (exactly one). */
async function bodyOf(opts: ImportOptions) {
  const given = [opts.filename !== undefined, opts.fromCluster !== undefined, opts.fromManagement === true];
  if (given.filter(Boolean).length !== 1) {
    throw new CliError('give one of -f, --from-cluster <name>, --from-management', EXIT.usage);
  }
  const common = {
    apply: opts.apply === true,
    ...(opts.letGoCluster !== undefined ? { let_go_cluster: opts.letGoCluster } : {}),
  };
  if (opts.filename) return { documents: await readDocuments(opts.filename), ...common };
  return { from: { cluster: opts.fromCluster ?? '' }, ...common };
}

interface ImportOptions {
  filename?: string[];
  fromCluster?: string;
  fromManagement?: boolean;
  apply?: boolean;
  letGoCluster?: string;
}

/** The APPLIED cell: created/failed (why), and whether the old controller let go. */
function appliedOf(e: ImportEntry): string {
  if (!e.applied) return '';
  const letGo = e.applied.let_go ? `, let go: ${e.applied.let_go.status.replace('_', ' ')}` : '';
  return `${e.applied.status}${e.applied.error ? `: ${e.applied.error}` : ''}${letGo}`;
}

function countOf(e: ImportEntry): string {
  const n = unsupported(e).length;
  return n === 0 ? '' : `${n} unsupported field${n === 1 ? '' : 's'} (-o wide lists them)`;
}

/** Registers `svc import` (and `svc import confirm|undo`) on `program`. */
export function registerImportCommands(program: Command): void {
  const command = program
    .command('import')
    .description(
      'map Argo CD and Flux objects (YAML files, or read from a cluster) to svc apps, appsets, repositories and registries; --apply creates them',
    )
    // Not required by commander: it would then be required of `svc import confirm|undo` too.
    .option('-f, --filename <path...>', 'a YAML file or a directory of them (repeatable)')
    .option('--from-cluster <name>', 'read the objects from this registered cluster instead')
    .option('--from-management', 'read the objects from the management cluster (your org namespace only) instead')
    .option('--apply', 'create what the objects map to (default: a dry-run); Apps stay pending until confirm or undo')
    .option(
      '--let-go-cluster <cluster>',
      "with --apply: where the objects live ('' = the management cluster): svc tells Argo CD / Flux to let go",
    )
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const body = await bodyOf(cmd.opts<ImportOptions>());
        const report = await api.POST('/api/v1/import', { body });
        print(render(report, format, (r, wide) => table(r, wide)));
        if (report.summary.failed > 0)
          throw new CliError(`${report.summary.failed} objects could not be created`, EXIT.failed);
      }),
    );
  registerTakeOverCommands(command);
}

/** `svc import confirm|undo <app> -n <namespace>`: end the take-over of an imported App. */
function registerTakeOverCommands(command: Command): void {
  const steps = {
    confirm: 'keep the imported App: it prunes and cascades deletion like any App from now on',
    undo: "give the objects back: the old controller's settings are restored, the App deleted, live objects kept",
  } as const;
  for (const [step, description] of Object.entries(steps) as Array<[keyof typeof steps, string]>) {
    command
      .command(`${step} <app>`)
      .description(description)
      .requiredOption('-n, --namespace <namespace>', "the App's destination namespace")
      .action(
        run(async (cmd) => {
          const { api, format } = runtimeOf(cmd);
          const body = { name: argsOf(cmd)[0] as string, namespace: cmd.opts<{ namespace: string }>().namespace };
          const answer = await api.POST(`/api/v1/import/${step}`, { body });
          const restored = answer.restored ? ` (${answer.restored.note})` : '';
          print(
            render(answer, format, () => `app ${answer.namespace}/${answer.name} import ${answer.import}${restored}`),
          );
        }),
      );
  }
}
