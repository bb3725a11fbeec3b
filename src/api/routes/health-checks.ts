/**
 * /health-checks (docs/api.md "Health checks"): GET /health-checks, POST /health-checks (creates, or replaces the
 * check of that kind; 201 when new), GET and DELETE /health-checks/{id}. Reads need `healthcheck:read`, writes
 * `healthcheck:manage`; an expression that does not compile is 422 naming the error.
 */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../health-checks/contract.ts';
import * as checks from '../health-checks/use-cases.ts';
import { healthCheckView } from '../health-checks/view.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the health-check routes. */
export async function healthCheckRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/health-checks', { schema: contract.listHealthChecksRoute }, async (request) => ({
    health_checks: (await run(services, checks.listHealthChecks, principalOf(request), undefined)).map(healthCheckView),
  }));

  api.post('/health-checks', { schema: contract.putHealthCheckRoute }, async (request, reply) => {
    const { record, created } = await run(services, checks.putHealthCheck, principalOf(request), request.body);
    return reply.code(created ? 201 : 200).send(healthCheckView(record));
  });

  api.get('/health-checks/:id', { schema: contract.getHealthCheckRoute }, async (request) =>
    healthCheckView(await run(services, checks.getHealthCheck, principalOf(request), request.params.id)),
  );

  api.delete('/health-checks/:id', { schema: contract.deleteHealthCheckRoute }, async (request) => {
    const deleted = await run(services, checks.deleteHealthCheck, principalOf(request), request.params.id);
    return { deleted: true, id: deleted.id };
  });
}
