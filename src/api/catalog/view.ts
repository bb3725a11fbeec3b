/** How a catalog template looks in the API (docs/api.md "Catalog"). */
import type { Static } from 'typebox';
import type { CatalogTemplateRecord } from '../../store/catalog.ts';
import type { CatalogTemplate } from './contract.ts';

/** The API view of a template at its current version (snake_case around the source block, which is as written). */
export function catalogTemplateView(r: CatalogTemplateRecord): Static<typeof CatalogTemplate> {
  return {
    id: r.id,
    name: r.name,
    ...(r.description !== undefined ? { description: r.description } : {}),
    source: r.source as Static<typeof CatalogTemplate>['source'],
    params_schema: r.paramsSchema as Static<typeof CatalogTemplate>['params_schema'],
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
