/** /secret-stores routes (contract §4.4). Writes and tests are for sessions only (secretstore:manage). */
import { type Api, principalOf } from '../api.ts';
import { DELETED } from '../contract/schema.ts';
import * as contract from '../secret-stores/contract.ts';
import * as stores from '../secret-stores/use-cases.ts';
import { testResultView } from '../secret-stores/view.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers every /secret-stores route. */
export async function secretStoreRoutes(api: Api, services: ApiServices): Promise<void> {
  const manage = { sessionOnly: true };

  api.get('/secret-stores/providers', { schema: contract.providersRoute }, async (request) => ({
    items: await run(services, stores.listProviders, principalOf(request), undefined),
  }));

  api.get('/secret-stores', { schema: contract.listStoresRoute }, async (request) => ({
    items: await run(services, stores.listStores, principalOf(request), undefined),
  }));

  api.get('/secret-stores/:id', { schema: contract.getStoreRoute }, async (request) =>
    run(services, stores.getStore, principalOf(request), request.params.id),
  );

  api.get('/secret-stores/:id/references', { schema: contract.storeReferencesRoute }, async (request) => ({
    items: await run(services, stores.storeReferences, principalOf(request), request.params.id),
  }));

  api.post('/secret-stores', { config: manage, schema: contract.createStoreRoute }, async (request, reply) =>
    reply.code(201).send(await run(services, stores.createStore, principalOf(request), request.body)),
  );

  api.patch('/secret-stores/:id', { config: manage, schema: contract.updateStoreRoute }, async (request) =>
    run(services, stores.updateStore, principalOf(request), { id: request.params.id, body: request.body }),
  );

  api.delete('/secret-stores/:id', { config: manage, schema: contract.deleteStoreRoute }, async (request) => {
    await run(services, stores.deleteStore, principalOf(request), request.params.id);
    return DELETED;
  });

  api.post('/secret-stores/test', { config: manage, schema: contract.testUnsavedStoreRoute }, async (request) =>
    testResultView(await run(services, stores.testUnsavedStore, principalOf(request), request.body)),
  );

  api.post('/secret-stores/:id/test', { config: manage, schema: contract.testSavedStoreRoute }, async (request) =>
    testResultView(await run(services, stores.testSavedStore, principalOf(request), request.params.id)),
  );
}
