/**
 * Delivery-window routes (docs/operator.md "Delivery windows"): GET and PUT /delivery-windows (the org's),
 * GET and PUT /clusters/{name}/windows (a cluster's) and GET /apps/{ns}/{name}/windows (whether a sync may run now).
 */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../delivery-windows/contract.ts';
import * as windows from '../delivery-windows/use-cases.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the delivery-window routes. */
export async function deliveryWindowRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/delivery-windows', { schema: contract.getOrgWindowsRoute }, async (request) =>
    run(services, windows.getOrgWindows, principalOf(request), undefined),
  );
  api.put('/delivery-windows', { schema: contract.putOrgWindowsRoute }, async (request) =>
    run(services, windows.setOrgWindows, principalOf(request), request.body),
  );
  api.get('/clusters/:name/windows', { schema: contract.getClusterWindowsRoute }, async (request) =>
    run(services, windows.getClusterWindows, principalOf(request), request.params),
  );
  api.put('/clusters/:name/windows', { schema: contract.putClusterWindowsRoute }, async (request) =>
    run(services, windows.setClusterWindows, principalOf(request), { ...request.params, ...request.body }),
  );
  api.get('/apps/:namespace/:name/windows', { schema: contract.appWindowsRoute }, async (request) =>
    run(services, windows.appWindows, principalOf(request), request.params),
  );
}
