/**
 * /incidents and /remediations (docs/incidents.md): incidents svc detected on Apps or external emitters reported,
 * with their timeline; the remediations svc proposes, approved (run as a normal operation) or rejected.
 */
import type { FastifyInstance } from 'fastify';
import { DNS1123_LABEL_PATTERN } from '../../core/names.ts';
import { REMEDIATION_ACTIONS } from '../../core/remediation-plan.ts';
import type { IncidentState } from '../../store/incidents.ts';
import type { RemediationState } from '../../store/remediations.ts';
import { orgCaller } from '../context.ts';
import { type EmitInput, IncidentService } from '../incidents/service.ts';
import { incidentView, remediationView } from '../incidents/views.ts';
import { errorAnswers, IdParams, PageQueryProperties, pageOf } from '../route-schemas.ts';
import type { ApiServices } from '../services.ts';

const Open = { type: 'object', additionalProperties: true } as const;
const AppRefObject = {
  type: ['object', 'null'],
  properties: { name: { type: 'string' }, namespace: { type: 'string' }, cluster: { type: 'string' } },
} as const;
const Nullable = { type: ['string', 'null'] } as const;

const IncidentObject = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    app: AppRefObject,
    cause: { type: 'string', description: 'Degraded, SyncFailed or Stalled when detected; the emitter’s otherwise' },
    source: { type: 'string', enum: ['detector', 'external'] },
    severity: { type: 'string', enum: ['info', 'warning', 'critical'] },
    title: { type: 'string' },
    message: { type: 'string' },
    evidence: Open,
    state: { type: 'string', enum: ['open', 'resolved'] },
    opened_by: { type: 'string', description: 'user id; empty when svc opened it' },
    opened_at: { type: 'string' },
    acknowledged_by: Nullable,
    acknowledged_at: Nullable,
    resolved_by: Nullable,
    resolved_at: Nullable,
    resolution: Nullable,
  },
} as const;

const RemediationObject = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    incident_id: { type: 'string' },
    action: { type: 'string', enum: [...REMEDIATION_ACTIONS] },
    revision: Nullable,
    pause_automated: { type: 'boolean' },
    evidence: Open,
    state: { type: 'string', enum: ['proposed', 'approved', 'rejected', 'executed', 'expired'] },
    operation_id: Nullable,
    decided_by: Nullable,
    decided_at: Nullable,
    reason: Nullable,
    result: Nullable,
    finished_at: Nullable,
    created_at: { type: 'string' },
  },
} as const;

const TimelineEntry = {
  type: 'object',
  properties: {
    at: { type: 'string' },
    kind: { type: 'string', enum: ['event', 'operation', 'delivery'] },
    event_id: { type: 'string' },
    type: { type: 'string' },
    remediation_id: Nullable,
    data: Open,
    delivery_id: { type: 'string' },
    webhook_id: { type: 'string' },
    event_type: { type: 'string' },
    state: { type: 'string' },
    attempts: { type: 'integer' },
    response_code: { type: ['integer', 'null'] },
    latency_ms: { type: ['integer', 'null'] },
  },
} as const;

const INCIDENT_MEANINGS = {
  403: 'missing permission where the incident’s App lives',
  404: 'no such incident (or App) in this organization',
  409: 'the incident is resolved or already acknowledged',
  503: 'no management cluster configured (only for an incident about an App)',
};
const REMEDIATION_MEANINGS = {
  403: 'missing permission where the App lives (remediation:approve, and the operation’s own)',
  404: 'no such remediation in this organization',
  409: 'decided already, its incident resolved, or the App has a pending operation',
  503: 'no management cluster configured',
};

/** Registers /incidents and /remediations. */
export async function incidentRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const incidents = new IncidentService(services);

  app.get<{ Querystring: { state?: IncidentState; app?: string; cause?: string; limit?: string; offset?: string } }>(
    '/incidents',
    {
      schema: {
        tags: ['incidents'],
        summary: 'Incidents the caller may read, newest first; filter by state (open, resolved), App name and cause',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            state: { type: 'string', enum: ['open', 'resolved'] },
            app: { type: 'string', minLength: 1, maxLength: 253 },
            cause: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]{0,62}$' },
            ...PageQueryProperties,
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              incidents: { type: 'array', items: IncidentObject },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
            },
          },
          ...errorAnswers({ meanings: INCIDENT_MEANINGS }),
        },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const list = await incidents.list(orgCaller(request), {
        ...page,
        ...(request.query.state ? { state: request.query.state } : {}),
        ...(request.query.app ? { app: request.query.app } : {}),
        ...(request.query.cause ? { cause: request.query.cause } : {}),
      });
      return { incidents: list.map(incidentView), ...page };
    },
  );

  app.post<{ Body: EmitInput }>(
    '/incidents',
    {
      schema: {
        tags: ['incidents'],
        summary:
          'Report an incident from outside (audited incident.emit); 201 when opened, 200 with the open one of the same App and cause',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['title'],
          properties: {
            title: { type: 'string', minLength: 1, maxLength: 200 },
            message: { type: 'string', maxLength: 4000 },
            cause: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]{0,62}$', description: 'default External' },
            severity: { type: 'string', enum: ['info', 'warning', 'critical'], description: 'default warning' },
            app: {
              type: 'string',
              minLength: 1,
              maxLength: 63,
              pattern: DNS1123_LABEL_PATTERN,
              description: 'the org’s App it is about (an App name: a DNS-1123 label)',
            },
            details: { type: 'object', additionalProperties: true },
          },
        },
        response: {
          200: { ...IncidentObject, properties: { ...IncidentObject.properties, created: { type: 'boolean' } } },
          201: { ...IncidentObject, properties: { ...IncidentObject.properties, created: { type: 'boolean' } } },
          ...errorAnswers({ body: true, also: [404, 503], meanings: INCIDENT_MEANINGS }),
        },
      },
    },
    async (request, reply) => {
      const { incident, created } = await incidents.emit(orgCaller(request), request.body);
      return reply.code(created ? 201 : 200).send({ ...incidentView(incident), created });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/incidents/:id',
    {
      schema: {
        tags: ['incidents'],
        summary: 'An incident with its remediations and timeline (events, operations, deliveries)',
        params: IdParams,
        response: {
          200: {
            type: 'object',
            properties: {
              ...IncidentObject.properties,
              remediations: { type: 'array', items: RemediationObject },
              timeline: { type: 'array', items: TimelineEntry },
            },
          },
          ...errorAnswers({ also: [404], meanings: INCIDENT_MEANINGS }),
        },
      },
    },
    async (request) => {
      const { incident, remediations, timeline } = await incidents.get(orgCaller(request), request.params.id);
      return { ...incidentView(incident), remediations: remediations.map(remediationView), timeline };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/incidents/:id/acknowledge',
    {
      schema: {
        tags: ['incidents'],
        summary: 'Acknowledge an open incident (audited incident.acknowledge)',
        params: IdParams,
        body: { type: 'object', additionalProperties: false, properties: {} },
        response: {
          200: IncidentObject,
          ...errorAnswers({ body: true, also: [404, 409], meanings: INCIDENT_MEANINGS }),
        },
      },
    },
    async (request) => incidentView(await incidents.acknowledge(orgCaller(request), request.params.id)),
  );

  app.post<{ Params: { id: string }; Body: { resolution?: string } }>(
    '/incidents/:id/resolve',
    {
      schema: {
        tags: ['incidents'],
        summary: 'Resolve an open incident by hand (audited incident.resolve); detected ones also resolve themselves',
        params: IdParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { resolution: { type: 'string', maxLength: 1000 } },
        },
        response: {
          200: IncidentObject,
          ...errorAnswers({ body: true, also: [404, 409], meanings: INCIDENT_MEANINGS }),
        },
      },
    },
    async (request) =>
      incidentView(await incidents.resolve(orgCaller(request), request.params.id, request.body?.resolution)),
  );

  app.get<{ Querystring: { state?: RemediationState; limit?: string; offset?: string } }>(
    '/remediations',
    {
      schema: {
        tags: ['incidents'],
        summary: 'Remediations the caller may read, newest first; filter by state',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            state: { type: 'string', enum: ['proposed', 'approved', 'rejected', 'executed', 'expired'] },
            ...PageQueryProperties,
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              remediations: { type: 'array', items: RemediationObject },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
            },
          },
          ...errorAnswers({ meanings: REMEDIATION_MEANINGS }),
        },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const list = await incidents.listRemediations(orgCaller(request), {
        ...page,
        ...(request.query.state ? { state: request.query.state } : {}),
      });
      return { remediations: list.map(remediationView), ...page };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/remediations/:id',
    {
      schema: {
        tags: ['incidents'],
        summary: 'One remediation',
        params: IdParams,
        response: { 200: RemediationObject, ...errorAnswers({ also: [404], meanings: REMEDIATION_MEANINGS }) },
      },
    },
    async (request) => remediationView(await incidents.getRemediation(orgCaller(request), request.params.id)),
  );

  app.post<{ Params: { id: string } }>(
    '/remediations/:id/approve',
    {
      schema: {
        tags: ['incidents'],
        summary:
          'Approve: run the remediation as its operation (same permission; 409 while another operation is pending); audited remediation.approve',
        params: IdParams,
        body: { type: 'object', additionalProperties: false, properties: {} },
        response: {
          200: RemediationObject,
          ...errorAnswers({ body: true, also: [404, 409, 503], meanings: REMEDIATION_MEANINGS }),
        },
      },
    },
    async (request) => remediationView(await incidents.approve(orgCaller(request), request.params.id)),
  );

  app.post<{ Params: { id: string }; Body: { reason?: string } }>(
    '/remediations/:id/reject',
    {
      schema: {
        tags: ['incidents'],
        summary: 'Reject a proposed remediation (audited remediation.reject)',
        params: IdParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { reason: { type: 'string', maxLength: 1000 } },
        },
        response: {
          200: RemediationObject,
          ...errorAnswers({ body: true, also: [404, 409], meanings: REMEDIATION_MEANINGS }),
        },
      },
    },
    async (request) =>
      remediationView(await incidents.reject(orgCaller(request), request.params.id, request.body?.reason)),
  );
}
