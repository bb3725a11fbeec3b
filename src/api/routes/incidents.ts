/**
 * /incidents and /remediations (docs/incidents.md): incidents svc detected on Apps or external emitters reported,
 * with their timeline; the remediations svc proposes, approved (run as a normal operation) or rejected.
 */
import { type Api, principalOf } from '../api.ts';
import { pageOf } from '../contract/schema.ts';
import * as contract from '../incidents/contract.ts';
import * as incidents from '../incidents/use-cases.ts';
import { incidentView, remediationView } from '../incidents/views.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers /incidents and /remediations. */
export async function incidentRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/incidents', { schema: contract.listIncidentsRoute }, async (request) => {
    const { limit, offset, ...filter } = request.query;
    const page = pageOf({ limit, offset });
    const list = await run(services, incidents.listIncidents, principalOf(request), { ...filter, ...page });
    return { incidents: list.map(incidentView), ...page };
  });

  api.post('/incidents', { schema: contract.emitIncidentRoute }, async (request, reply) => {
    const { incident, created } = await run(services, incidents.emitIncident, principalOf(request), request.body);
    return reply.code(created ? 201 : 200).send({ ...incidentView(incident), created });
  });

  api.get('/incidents/:id', { schema: contract.getIncidentRoute }, async (request) => {
    const got = await run(services, incidents.getIncident, principalOf(request), request.params.id);
    return {
      ...incidentView(got.incident),
      remediations: got.remediations.map(remediationView),
      timeline: got.timeline,
    };
  });

  api.post('/incidents/:id/acknowledge', { schema: contract.acknowledgeIncidentRoute }, async (request) =>
    incidentView(await run(services, incidents.acknowledgeIncident, principalOf(request), request.params.id)),
  );

  api.post('/incidents/:id/resolve', { schema: contract.resolveIncidentRoute }, async (request) => {
    const input = { id: request.params.id, note: request.body.resolution };
    return incidentView(await run(services, incidents.resolveIncident, principalOf(request), input));
  });

  api.get('/remediations', { schema: contract.listRemediationsRoute }, async (request) => {
    const page = pageOf(request.query);
    const input = { state: request.query.state, ...page };
    const list = await run(services, incidents.listRemediations, principalOf(request), input);
    return { remediations: list.map(remediationView), ...page };
  });

  api.get('/remediations/:id', { schema: contract.getRemediationRoute }, async (request) =>
    remediationView(await run(services, incidents.getRemediation, principalOf(request), request.params.id)),
  );

  api.post('/remediations/:id/approve', { schema: contract.approveRemediationRoute }, async (request) =>
    remediationView(await run(services, incidents.approveRemediation, principalOf(request), request.params.id)),
  );

  api.post('/remediations/:id/reject', { schema: contract.rejectRemediationRoute }, async (request) => {
    const input = { id: request.params.id, reason: request.body.reason };
    return remediationView(await run(services, incidents.rejectRemediation, principalOf(request), input));
  });
}
