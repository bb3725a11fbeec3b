/**
 * `svc catalog list|get|create -f|delete`: the org's catalog templates (docs/api.md "Catalog"). `create -f` takes a
 * template as POST /catalog does (YAML or JSON; - for stdin) and writes it, or its next version when the name
 * exists (the template's Apps roll forward to it). An App is made from a template with `svc app create` and a
 * Catalog source, or in the UI's Catalog page.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse } from 'yaml';
import type { CatalogTemplate, CatalogTemplateWrite } from '../../client/answers.ts';
import { CliError, EXIT } from './errors.ts';
import { render, renderFields } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

/** The params of a template, one line each: `name (type, default)`. */
function paramLines(t: CatalogTemplate): string {
  const required = new Set(t.params_schema.required ?? []);
  return (
    Object.entries(t.params_schema.properties)
      .map(([name, p]) => {
        const notes = [
          p.type,
          required.has(name) ? 'required' : '',
          p.default !== undefined ? `default ${p.default}` : '',
        ];
        return `${name} (${notes.filter(Boolean).join(', ')})${p.description ? `: ${p.description}` : ''}`;
      })
      .join('\n') || 'none'
  );
}

const sourceOf = (t: CatalogTemplate) =>
  t.source.type === 'HelmChart'
    ? `chart ${t.source.helmChart.chart} from ${t.source.helmChart.repoURL}`
    : `git ${t.source.git.repoURL}${t.source.git.path ? ` ${t.source.git.path}` : ''}`;

const fields = (t: CatalogTemplate) =>
  renderFields([
    ['Name', t.name],
    ['Version', String(t.version)],
    ['Description', t.description ?? ''],
    ['Source', sourceOf(t)],
    ['Params', paramLines(t)],
    ['Updated', t.updated_at],
  ]);

/** The template in `file` (YAML or JSON; - for stdin). */
function readTemplate(file: string): CatalogTemplateWrite {
  const parsed: unknown = parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CliError(`${file} must hold one template (an object)`, EXIT.usage);
  }
  return parsed as CatalogTemplateWrite;
}

/** Registers `svc catalog` on `program`. */
export function registerCatalogCommands(program: Command): void {
  const catalog = program.command('catalog').description('templates of your org catalog: services without YAML');
  catalog
    .command('list')
    .alias('ls')
    .description('the templates of your org')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        print(
          render(await api.GET('/api/v1/catalog'), format, (a) => ({
            rows: a.templates,
            columns: [
              { header: 'name', value: (t: CatalogTemplate) => t.name },
              { header: 'version', value: (t: CatalogTemplate) => String(t.version) },
              { header: 'source', value: (t: CatalogTemplate) => sourceOf(t) },
              { header: 'params', value: (t: CatalogTemplate) => Object.keys(t.params_schema.properties).join(', ') },
              { header: 'description', value: (t: CatalogTemplate) => t.description ?? '', wide: true },
            ],
            empty: 'No templates.',
          })),
        );
      }),
    );
  catalog
    .command('get <name>')
    .description('a template: its source and params')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [name] = argsOf(cmd) as [string];
        print(render(await api.GET('/api/v1/catalog/{name}', { params: { path: { name } } }), format, fields));
      }),
    );
  catalog
    .command('create')
    .description('write a template from a file (YAML or JSON); an existing name gets its next version')
    .requiredOption('-f, --file <file>', 'the template (- for stdin)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const body = readTemplate(cmd.opts<{ file: string }>().file);
        print(render(await api.POST('/api/v1/catalog', { body }), format, fields));
      }),
    );
  catalog
    .command('delete <name>')
    .description('delete a template (its Apps fail until it is written again)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [name] = argsOf(cmd) as [string];
        const answer = await api.DELETE('/api/v1/catalog/{name}', { params: { path: { name } } });
        print(render(answer, format, () => `template ${name} deleted`));
      }),
    );
}
