/**
 * The check App create, clone and preview make of a Catalog source (docs/api.md "Catalog"): the template exists in
 * the org (422 otherwise, like an unregistered registryRef), and the params pass its schema and make a usable source
 * (400 with the schema's message: they are the caller's input).
 */
import type { AppSpec } from '../../core/app-schema.ts';
import { instantiate } from '../../core/catalog.ts';
import { InputError, UnprocessableError } from '../../core/errors.ts';
import { gitArgProblems } from '../../core/git-source-args.ts';
import { helmChartProblems } from '../../core/helm-chart.ts';
import { CatalogStore } from '../../store/catalog.ts';
import type { UseCaseContext } from '../use-case.ts';

/** Refuses a Catalog source naming no template of the org (422) or whose params the template refuses (400). */
export async function checkCatalogSource(ctx: UseCaseContext, spec: AppSpec): Promise<void> {
  const catalog = spec.source.type === 'Catalog' ? spec.source.catalog : undefined;
  if (!catalog) return;
  const template = await new CatalogStore(ctx.services.store.db).get(ctx.actor.org.id, catalog.template);
  if (!template) {
    throw new UnprocessableError(`source.catalog.template: template "${catalog.template}" is not in the org catalog`);
  }
  let problems: string[];
  try {
    const source = instantiate(template, catalog.params);
    problems =
      source.type === 'Git'
        ? gitArgProblems(source.git, 'source.git')
        : helmChartProblems(source.helmChart, 'source.helmChart');
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    problems = [err.message];
  }
  if (problems.length > 0) {
    throw new InputError(`source.catalog: template "${template.name}" v${template.version}: ${problems.join('; ')}`);
  }
}
