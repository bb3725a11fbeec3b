/**
 * /catalog (docs/api.md "Catalog"): GET /catalog, POST /catalog (creates a template, or writes its next version;
 * 201 when new), GET and DELETE /catalog/{name}. Reads need `catalog:read`, writes `catalog:manage`.
 */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../catalog/contract.ts';
import * as catalog from '../catalog/use-cases.ts';
import { catalogTemplateView } from '../catalog/view.ts';
import { DELETED } from '../contract/schema.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the catalog routes. */
export async function catalogRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/catalog', { schema: contract.listCatalogRoute }, async (request) => ({
    templates: (await run(services, catalog.listCatalog, principalOf(request), undefined)).map(catalogTemplateView),
  }));

  api.post('/catalog', { schema: contract.putCatalogRoute }, async (request, reply) => {
    const body = request.body as catalog.PutCatalogBody;
    const { record, created } = await run(services, catalog.putCatalogTemplate, principalOf(request), body);
    return reply.code(created ? 201 : 200).send(catalogTemplateView(record));
  });

  api.get('/catalog/:name', { schema: contract.getCatalogRoute }, async (request) =>
    catalogTemplateView(await run(services, catalog.getCatalogTemplate, principalOf(request), request.params.name)),
  );

  api.delete('/catalog/:name', { schema: contract.deleteCatalogRoute }, async (request) => {
    await run(services, catalog.deleteCatalogTemplate, principalOf(request), request.params.name);
    return DELETED;
  });
}
