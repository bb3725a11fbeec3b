/**
 * /appsets (issue 27 item 1; docs/api.md "AppSets"): GET/POST /appsets, GET/PUT/DELETE /appsets/{name}. Reads need
 * `deployment:read` in the org, writes `deployment:manage` in the org.
 */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../appsets/contract.ts';
import * as appsets from '../appsets/use-cases.ts';
import { appSetView } from '../appsets/view.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the AppSet routes. */
export async function appSetRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/appsets', { schema: contract.listAppSetsRoute }, async (request) => ({
    appsets: (await run(services, appsets.listAppSets, principalOf(request), undefined)).map(appSetView),
  }));

  api.get('/appsets/:name', { schema: contract.getAppSetRoute }, async (request) =>
    appSetView(await run(services, appsets.getAppSet, principalOf(request), request.params.name)),
  );

  api.post('/appsets', { schema: contract.createAppSetRoute }, async (request, reply) =>
    reply.code(201).send(appSetView(await run(services, appsets.createAppSet, principalOf(request), request.body))),
  );

  api.put('/appsets/:name', { schema: contract.updateAppSetRoute }, async (request) => {
    const input = { name: request.params.name, body: request.body };
    return appSetView(await run(services, appsets.updateAppSet, principalOf(request), input));
  });

  api.delete('/appsets/:name', { schema: contract.deleteAppSetRoute }, async (request) => {
    const deleted = await run(services, appsets.deleteAppSet, principalOf(request), request.params.name);
    return { deleted: true as const, name: deleted.metadata.name };
  });
}
