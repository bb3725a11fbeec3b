/**
 * /health-checks (docs/api.md "Health checks"): an org's custom health checks in CEL, one per apiVersion and kind,
 * applying to every App of the org (an App's own `spec.health.checks` replace them for its objects).
 * GET /health-checks, POST /health-checks (creates, or replaces the check of that kind), GET and DELETE
 * /health-checks/{id}. Reads need `healthcheck:read`, writes `healthcheck:manage`; a bad expression is 400 naming
 * the compile error.
 */
import type { FastifyInstance } from 'fastify';
import type { HealthCheckRecord } from '../../store/health-checks.ts';
import { orgCaller } from '../context.ts';
import { HealthCheckService } from '../health-checks/service.ts';
import { errorAnswers, IdParams } from '../route-schemas.ts';
import type { ApiServices } from '../services.ts';

const expression = (what: string) => ({ type: 'string', minLength: 1, maxLength: 2048, description: what }) as const;

const CheckFields = {
  api_version: { type: 'string', minLength: 1, maxLength: 253, description: 'apiVersion of the objects, exactly' },
  kind: { type: 'string', minLength: 1, maxLength: 63, description: 'kind of the objects' },
  current: expression('CEL over apiVersion, kind, metadata, spec, status: true when Healthy'),
  in_progress: expression('CEL: true while Progressing (evaluated first)'),
  failed: expression('CEL: true when Degraded (evaluated second)'),
} as const;

const CheckView = {
  type: 'object',
  required: ['id', 'api_version', 'kind', 'current', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    ...CheckFields,
    in_progress: { type: 'string' },
    failed: { type: 'string' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

/** What a status means on these routes, where it differs from the common wording. */
const MEANINGS: Record<number, string> = {
  400: 'invalid input, or an expression that does not compile (the message names it)',
  404: 'no such health check in this organization',
  409: 'the same kind written concurrently',
};

/** The JSON view of a check. */
export function healthCheckView(r: HealthCheckRecord): Record<string, string> {
  return {
    id: r.id,
    api_version: r.apiVersion,
    kind: r.kind,
    current: r.current,
    ...(r.inProgress ? { in_progress: r.inProgress } : {}),
    ...(r.failed ? { failed: r.failed } : {}),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

interface PutBody {
  api_version: string;
  kind: string;
  current: string;
  in_progress?: string;
  failed?: string;
}

/** Registers the health-check routes. */
export async function healthCheckRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const checks = new HealthCheckService(services);

  app.get(
    '/health-checks',
    {
      schema: {
        tags: ['health-checks'],
        summary: 'Custom health checks of the caller org (healthcheck:read)',
        response: {
          200: {
            type: 'object',
            required: ['health_checks'],
            properties: { health_checks: { type: 'array', items: CheckView } },
          },
          ...errorAnswers({ meanings: MEANINGS }),
        },
      },
    },
    async (request) => ({ health_checks: (await checks.list(orgCaller(request))).map(healthCheckView) }),
  );

  app.post<{ Body: PutBody }>(
    '/health-checks',
    {
      schema: {
        tags: ['health-checks'],
        summary: 'Create the check of an apiVersion and kind, or replace it (healthcheck:manage); 201 when new',
        body: {
          type: 'object',
          required: ['api_version', 'kind', 'current'],
          additionalProperties: false,
          properties: CheckFields,
        },
        response: { 200: CheckView, 201: CheckView, ...errorAnswers({ body: true, also: [409], meanings: MEANINGS }) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { record, created } = await checks.put(orgCaller(request), {
        apiVersion: b.api_version,
        kind: b.kind,
        current: b.current,
        ...(b.in_progress ? { inProgress: b.in_progress } : {}),
        ...(b.failed ? { failed: b.failed } : {}),
      });
      return reply.code(created ? 201 : 200).send(healthCheckView(record));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/health-checks/:id',
    {
      schema: {
        tags: ['health-checks'],
        summary: 'One health check (healthcheck:read)',
        params: IdParams,
        response: { 200: CheckView, ...errorAnswers({ also: [404], meanings: MEANINGS }) },
      },
    },
    async (request) => healthCheckView(await checks.get(orgCaller(request), request.params.id)),
  );

  app.delete<{ Params: { id: string } }>(
    '/health-checks/:id',
    {
      schema: {
        tags: ['health-checks'],
        summary: 'Delete a health check (healthcheck:manage)',
        params: IdParams,
        response: {
          200: {
            type: 'object',
            required: ['deleted', 'id'],
            properties: { deleted: { type: 'boolean' }, id: { type: 'string' } },
          },
          ...errorAnswers({ also: [404], meanings: MEANINGS }),
        },
      },
    },
    async (request) => {
      await checks.delete(orgCaller(request), request.params.id);
      return { deleted: true, id: request.params.id };
    },
  );
}
