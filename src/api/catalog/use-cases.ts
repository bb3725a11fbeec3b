/**
 * The catalog use-cases (docs/api.md "Catalog"): list and read (`catalog:read`, every role), put and delete
 * (`catalog:manage`, Owner and Admin). A template is checked before it is stored (src/core/catalog.ts: 422 naming
 * the field); each write makes a new version and lands with its audit entry (`catalog.put`, `catalog.delete`) in one
 * transaction. The operator reads templates over the internal channel; a new version reaches automated Apps within
 * 30 s (at once for a sync).
 */
import { type CatalogTemplateSpec, templateSpecProblems } from '../../core/catalog.ts';
import { ConflictError, NotFoundError, UnprocessableError } from '../../core/errors.ts';
import { CatalogStore, type CatalogTemplateRecord } from '../../store/catalog.ts';
import { isUniqueViolation } from '../../store/database.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';

/** A put body as the API takes it. */
export interface PutCatalogBody {
  name: string;
  description?: string | undefined;
  source: CatalogTemplateSpec['source'];
  params_schema: CatalogTemplateSpec['paramsSchema'];
}

const storeOf = (ctx: UseCaseContext) => new CatalogStore(ctx.services.store.db);

/** The org's template `name`; 404 otherwise. */
async function locateTemplate(ctx: UseCaseContext, name: string): Promise<CatalogTemplateRecord> {
  const found = await storeOf(ctx).get(ctx.actor.org.id, name);
  if (!found) throw new NotFoundError(`catalog template "${name}" not found`);
  return found;
}

/** The org's templates. */
export const listCatalog = useCase({
  permission: 'catalog:read',
  where: 'org',
  act: (ctx, _input: undefined) => storeOf(ctx).list(ctx.actor.org.id),
});

/** One template. */
export const getCatalogTemplate = useCase({
  permission: 'catalog:read',
  where: 'org',
  locate: locateTemplate,
  act: async (_ctx, _name: string, record) => record,
});

/** The template a put body writes; 422 naming each rule it breaks that the document cannot state. */
function specOf(body: PutCatalogBody): CatalogTemplateSpec {
  const spec: CatalogTemplateSpec = {
    name: body.name,
    ...(body.description !== undefined ? { description: body.description } : {}),
    source: body.source,
    paramsSchema: body.params_schema,
  };
  const problems = templateSpecProblems(spec);
  if (problems.length > 0) throw new UnprocessableError(problems.join('; '));
  return spec;
}

/**
 * Creates a template or writes its next version; answers it and whether it is new. Audited `catalog.put` with the
 * version written.
 */
export const putCatalogTemplate = useCase({
  permission: 'catalog:manage',
  where: 'org',
  act: async (ctx, body: PutCatalogBody): Promise<{ record: CatalogTemplateRecord; created: boolean }> => {
    const spec = specOf(body);
    try {
      return await ctx.write(async (tx) => {
        const result = await new CatalogStore(tx.db).put(ctx.actor.org.id, spec);
        await tx.record({
          action: 'catalog.put',
          resourceType: 'catalog_template',
          resourceId: result.record.id,
          resourceName: spec.name,
          details: { created: result.created, version: result.record.version },
        });
        return result;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`catalog template "${spec.name}" is being written`);
      throw err;
    }
  },
});

/** Deletes a template (its versions stay for its Apps' history); 404 when the org has none by that name. */
export const deleteCatalogTemplate = useCase({
  permission: 'catalog:manage',
  where: 'org',
  locate: locateTemplate,
  act: async (ctx, name: string, found): Promise<CatalogTemplateRecord> => {
    await ctx.write(async (tx) => {
      await new CatalogStore(tx.db).delete(ctx.actor.org.id, name);
      await tx.record({
        action: 'catalog.delete',
        resourceType: 'catalog_template',
        resourceId: found.id,
        resourceName: name,
        details: { version: found.version },
      });
    });
    return found;
  },
});
