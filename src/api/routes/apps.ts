/** /apps routes that read, create, clone, preview and delete Apps (contract §4.2): parse → use-case → present. */
import { type Api, principalOf } from '../api.ts';
import { parseListQuery } from '../apps/list-query.ts';
import * as contract from '../apps/routes-contract.ts';
import * as apps from '../apps/use-cases.ts';
import { appView } from '../apps/view.ts';
import { appListJson } from '../apps/view-json.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the /apps read, create, clone, preview and delete routes. */
export async function appRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/apps', { schema: contract.listAppsRoute }, async (request, reply) => {
    // Each app's JSON is serialized once per resourceVersion by the App component's own serializer (see
    // KubeApps.listEntries, apps/view-json.ts); the bytes are sent as they are.
    const query = parseListQuery(request.query);
    const page = await run(services, apps.listApps, principalOf(request), query);
    const fields = query.paged
      ? { total: page.total, next_cursor: page.nextCursor, resource_version: page.resourceVersion }
      : undefined;
    // Bytes pass the serializer untouched: the body is the AppList answer already serialized.
    return reply.type('application/json; charset=utf-8').send(appListJson(page.items, fields) as never);
  });

  api.post('/apps', { schema: contract.createAppRoute }, async (request, reply) =>
    reply.code(201).send(appView(await run(services, apps.createApp, principalOf(request), request.body))),
  );

  api.post('/apps/preview', { schema: contract.previewAppRoute }, async (request) =>
    run(services, apps.previewApp, principalOf(request), { body: request.body, current: request.query.app }),
  );

  api.get('/apps/:namespace/:name', { schema: contract.getAppRoute }, async (request) =>
    appView(await run(services, apps.getApp, principalOf(request), request.params)),
  );

  api.delete('/apps/:namespace/:name', { schema: contract.deleteAppRoute }, async (request) => {
    const deleted = await run(services, apps.deleteApp, principalOf(request), request.params);
    return { deleted: true, name: deleted.metadata.name, namespace: deleted.spec.destination.namespace };
  });

  api.post('/apps/:namespace/:name/clone', { schema: contract.cloneAppRoute }, async (request, reply) => {
    const input = { ...request.params, as: request.body };
    return reply.code(201).send(appView(await run(services, apps.cloneApp, principalOf(request), input)));
  });
}
