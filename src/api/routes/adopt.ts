/**
 * GET /apps/adoptable and POST /apps/adopt (contract §4.2 rule 14): parse → AdoptService → present. Adopt creates
 * an image-source App rendering the workload's own template, with a Sync operation, so the operator takes the
 * fields over at once.
 */
import type { FastifyInstance } from 'fastify';
import { type AdoptRequest, AdoptService } from '../apps/adopt-service.ts';
import { AppObject, appErrors } from '../apps/schemas.ts';
import { appView } from '../apps/view.ts';
import { orgCaller } from '../context.ts';
import type { ApiServices } from '../services.ts';

const WorkloadView = {
  type: 'object',
  properties: {
    kind: { type: 'string' },
    name: { type: 'string' },
    namespace: { type: 'string' },
    cluster: { type: 'string' },
    replicas: { type: 'integer' },
    images: { type: 'array', items: { type: 'string' } },
    adoptable: { type: 'boolean' },
    reason: { type: 'string' },
  },
} as const;

/** Registers the adopt routes. */
export async function adoptRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const adoption = new AdoptService(services);

  app.get<{ Querystring: { cluster?: string; namespace: string } }>(
    '/apps/adoptable',
    {
      schema: {
        tags: ['apps'],
        summary: 'Unmanaged Deployments and StatefulSets in a namespace (permission deployment:read there)',
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['namespace'],
          properties: { cluster: { type: 'string' }, namespace: { type: 'string' } },
        },
        response: {
          200: { type: 'object', properties: { workloads: { type: 'array', items: WorkloadView } } },
          ...appErrors(),
        },
      },
    },
    async (request) => ({
      workloads: await adoption.adoptable(orgCaller(request), request.query.cluster ?? '', request.query.namespace),
    }),
  );

  app.post<{ Body: AdoptRequest }>(
    '/apps/adopt',
    {
      schema: {
        tags: ['apps'],
        summary:
          'Take a Deployment over as an image-source App created with a Sync operation (permission deployment:manage); 404 when no such unmanaged workload, 409 when it cannot be adopted (selector other than the rendered labels, not one container named after it, a StatefulSet) or the App name is taken',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['namespace', 'name', 'kind'],
          properties: {
            cluster: { type: 'string' },
            namespace: { type: 'string' },
            name: { type: 'string' },
            kind: { type: 'string', enum: ['Deployment', 'StatefulSet'] },
          },
        },
        response: { 201: AppObject, ...appErrors({ body: true, also: [404, 409] }) },
      },
    },
    async (request, reply) => reply.code(201).send(appView(await adoption.adopt(orgCaller(request), request.body))),
  );
}
