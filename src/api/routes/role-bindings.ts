/**
 * /role-bindings: grant a user or team a level (read, sync, admin) at an org, cluster or deployment scope. Not in
 * the contract's tables (it names the bindings, not their routes); see docs/compatibility.md ("Role bindings have routes").
 */
import { type Api, principalOf } from '../api.ts';
import { DELETED } from '../contract/schema.ts';
import * as contract from '../role-bindings/contract.ts';
import * as bindings from '../role-bindings/use-cases.ts';
import { bindingView } from '../role-bindings/view.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers GET/POST /role-bindings and DELETE /role-bindings/:id. */
export async function roleBindingRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/role-bindings', { schema: contract.listBindingsRoute }, async (request) => ({
    bindings: (await run(services, bindings.listBindings, principalOf(request), undefined)).map(bindingView),
  }));

  api.post('/role-bindings', { schema: contract.createBindingRoute }, async (request, reply) =>
    reply.code(201).send(bindingView(await run(services, bindings.createBinding, principalOf(request), request.body))),
  );

  api.delete('/role-bindings/:id', { schema: contract.deleteBindingRoute }, async (request) => {
    await run(services, bindings.deleteBinding, principalOf(request), request.params.id);
    return DELETED;
  });
}
