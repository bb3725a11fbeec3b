/**
 * GET /apps/adoptable and POST /apps/adopt (contract §4.2 rule 14). Adopt creates an image-source App rendering the
 * workload's own template, with a Sync operation, so the operator takes the fields over at once.
 */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../apps/adopt-contract.ts';
import { adoptable, adoptWorkload } from '../apps/adopt-use-cases.ts';
import { appView } from '../apps/view.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the adopt routes. */
export async function adoptRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/apps/adoptable', { schema: contract.adoptableRoute }, async (request) => ({
    workloads: await run(services, adoptable, principalOf(request), request.query),
  }));

  api.post('/apps/adopt', { schema: contract.adoptRoute }, async (request, reply) =>
    reply.code(201).send(appView(await run(services, adoptWorkload, principalOf(request), request.body))),
  );
}
