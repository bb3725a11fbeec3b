/**
 * /registries (docs/api.md "Registries"): GET/POST /registries, GET/PATCH/DELETE /registries/{id}, POST
 * /registries/test and POST /registries/{id}/test. Reads need `registry:read`; writes and tests `registry:manage`
 * with a session (API keys get 403, contract §5 rule 4). Credentials are write-only.
 */

import type { RegistryRecord } from '../../store/registries.ts';
import { type Api, principalOf } from '../api.ts';
import * as contract from '../registries/contract.ts';
import * as registries from '../registries/use-cases.ts';
import { registryView } from '../registries/view.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the registry routes. */
export async function registryRoutes(api: Api, services: ApiServices): Promise<void> {
  const view = (r: RegistryRecord) => registryView(r, services.config.publicURL);
  const manage = { sessionOnly: true } as const;

  api.get('/registries', { schema: contract.listRegistriesRoute }, async (request) => ({
    registries: (await run(services, registries.listRegistries, principalOf(request), undefined)).map(view),
  }));

  api.get('/registries/:id', { schema: contract.getRegistryRoute }, async (request) =>
    view(await run(services, registries.getRegistry, principalOf(request), request.params.id)),
  );

  api.post('/registries', { config: manage, schema: contract.createRegistryRoute }, async (request, reply) => {
    const { record, notificationToken } = await run(
      services,
      registries.createRegistry,
      principalOf(request),
      request.body,
    );
    return reply.code(201).send({ ...view(record), notification_token: notificationToken });
  });

  api.patch('/registries/:id', { config: manage, schema: contract.updateRegistryRoute }, async (request) => {
    const input = { id: request.params.id, body: request.body };
    const { record, notificationToken } = await run(services, registries.updateRegistry, principalOf(request), input);
    return { ...view(record), ...(notificationToken ? { notification_token: notificationToken } : {}) };
  });

  api.delete('/registries/:id', { config: manage, schema: contract.deleteRegistryRoute }, async (request) => {
    const deleted = await run(services, registries.deleteRegistry, principalOf(request), request.params.id);
    return { deleted: true, id: deleted.id };
  });

  api.post('/registries/test', { config: manage, schema: contract.testUnsavedRegistryRoute }, async (request) =>
    run(services, registries.testUnsavedRegistry, principalOf(request), request.body),
  );

  api.post('/registries/:id/test', { config: manage, schema: contract.testSavedRegistryRoute }, async (request) =>
    run(services, registries.testSavedRegistry, principalOf(request), request.params.id),
  );
}
