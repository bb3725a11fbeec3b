/**
 * /registries (docs/api.md "Registries"; the contract names registries, `registry:manage` and their audit actions
 * but not their routes): GET/POST /registries, GET/PATCH/DELETE /registries/{id}, POST /registries/test and
 * POST /registries/{id}/test. Reads need `registry:read`; writes and tests `registry:manage` with a session (API
 * keys get 403, contract §5 rule 4). Parse → RegistryService → present; credentials are write-only.
 */
import type { FastifyInstance } from 'fastify';
import type { RegistryRecord } from '../../store/registries.ts';
import { ErrorBody } from '../apps/schemas.ts';
import { orgCaller } from '../context.ts';
import { MAX_CA_BYTES } from '../registries/input.ts';
import { type CreateRegistryBody, RegistryService, type UpdateRegistryBody } from '../registries/service.ts';
import { registryView } from '../registries/view.ts';
import type { ApiServices } from '../services.ts';

const RegistryView = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    host: { type: 'string' },
    insecure: { type: 'boolean' },
    ca: { type: ['string', 'null'] },
    username: { type: ['string', 'null'] },
    has_password: { type: 'boolean' },
    status: { type: 'string', enum: ['untested', 'connected', 'error'] },
    status_detail: { type: 'string' },
    last_tested_at: { type: ['string', 'null'] },
    notification_url: { type: 'string' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

/** A registry with a notification token (create, and update with rotate_notification_token). */
const RegistryWithToken = {
  type: 'object',
  properties: {
    ...RegistryView.properties,
    notification_token: {
      type: 'string',
      description: 'Bearer token for the notification endpoint; shown only in this answer',
    },
  },
} as const;

const TestResultView = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['connected', 'error'] },
    latency: { type: 'integer', description: 'milliseconds' },
    details: { type: 'object', properties: { host: { type: 'string' }, authenticated: { type: 'boolean' } } },
    error: { type: 'string' },
    errorClass: {
      type: 'string',
      enum: ['dns', 'tls', 'connect', 'timeout', 'refused', 'auth', 'permission', 'notfound', 'provider'],
    },
  },
} as const;

const connection = {
  host: {
    type: 'string',
    minLength: 1,
    maxLength: 253,
    description: 'registry host, name[:port], no scheme; the outbound policy must allow its addresses',
  },
  insecure: { type: 'boolean', description: 'plain http instead of https (refused in production mode)' },
  ca: { type: ['string', 'null'], maxLength: MAX_CA_BYTES, description: 'PEM CA certificates to trust' },
  username: { type: ['string', 'null'], minLength: 1, maxLength: 256 },
  password: { type: ['string', 'null'], minLength: 1, maxLength: 4096, description: 'write-only; sealed at rest' },
} as const;

const IdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

const ERRORS: Record<number, string> = {
  400: 'invalid input (body or host refused by the outbound policy)',
  401: 'no valid session or API key',
  403: 'missing permission, or an API key on a session-only route',
  404: 'no such registry in this organization',
  409: 'name taken, or the registry is used by apps',
  413: 'request body over 1 MiB',
  415: 'request body that is not JSON',
  500: 'internal error',
};

function errors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, { description: ERRORS[s], ...ErrorBody }]));
}

/** Registers the registry routes. */
export async function registryRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const registries = new RegistryService(services);
  const view = (r: RegistryRecord) => registryView(r, services.config.publicURL);
  const manage = { sessionOnly: true } as const;

  app.get(
    '/registries',
    {
      schema: {
        tags: ['registries'],
        summary: 'Registries of the caller org (registry:read)',
        response: {
          200: { type: 'object', properties: { registries: { type: 'array', items: RegistryView } } },
          ...errors(401, 403, 500),
        },
      },
    },
    async (request) => ({ registries: (await registries.list(orgCaller(request))).map(view) }),
  );

  app.get<{ Params: { id: string } }>(
    '/registries/:id',
    {
      schema: {
        tags: ['registries'],
        summary: 'One registry (registry:read)',
        params: IdParams,
        response: { 200: RegistryView, ...errors(400, 401, 403, 404, 500) },
      },
    },
    async (request) => view(await registries.get(orgCaller(request), request.params.id)),
  );

  app.post<{ Body: CreateRegistryBody }>(
    '/registries',
    {
      config: manage,
      schema: {
        tags: ['registries'],
        summary: 'Register a registry (registry:manage, session only); 201 with a notification token shown once',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'host'],
          properties: { name: { type: 'string', minLength: 1, maxLength: 63 }, ...connection },
        },
        response: { 201: RegistryWithToken, ...errors(400, 401, 403, 409, 413, 415, 500) },
      },
    },
    async (request, reply) => {
      const { record, notificationToken } = await registries.create(orgCaller(request), request.body);
      return reply.code(201).send({ ...view(record), notification_token: notificationToken });
    },
  );

  app.patch<{ Params: { id: string }; Body: UpdateRegistryBody }>(
    '/registries/:id',
    {
      config: manage,
      schema: {
        tags: ['registries'],
        summary:
          'Change a registry (registry:manage, session only); omitted fields stay, null clears ca/username/password; 409 renaming a registry apps use',
        params: IdParams,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 63 },
            ...connection,
            rotate_notification_token: { type: 'boolean', description: 'answer a new notification token (once)' },
          },
        },
        response: { 200: RegistryWithToken, ...errors(400, 401, 403, 404, 409, 413, 415, 500) },
      },
    },
    async (request) => {
      const { record, notificationToken } = await registries.update(
        orgCaller(request),
        request.params.id,
        request.body,
      );
      return { ...view(record), ...(notificationToken ? { notification_token: notificationToken } : {}) };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/registries/:id',
    {
      config: manage,
      schema: {
        tags: ['registries'],
        summary: 'Delete a registry (registry:manage, session only); 409 naming the apps that use it',
        params: IdParams,
        response: {
          200: { type: 'object', properties: { deleted: { type: 'boolean' }, id: { type: 'string' } } },
          ...errors(400, 401, 403, 404, 409, 500),
        },
      },
    },
    async (request) => {
      const deleted = await registries.delete(orgCaller(request), request.params.id);
      return { deleted: true, id: deleted.id };
    },
  );

  app.post<{ Body: CreateRegistryBody }>(
    '/registries/test',
    {
      config: manage,
      schema: {
        tags: ['registries'],
        summary:
          'Test unsaved connection fields: GET /v2/ through the auth challenge; 200 with {status:"connected",latency,details} or {status:"error",error,errorClass}',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['host'],
          properties: connection,
        },
        response: { 200: TestResultView, ...errors(400, 401, 403, 413, 415, 500) },
      },
    },
    async (request) => registries.testUnsaved(orgCaller(request), request.body),
  );

  app.post<{ Params: { id: string } }>(
    '/registries/:id/test',
    {
      config: manage,
      schema: {
        tags: ['registries'],
        summary: 'Test a saved registry and record the result (status connected or error)',
        params: IdParams,
        body: { type: 'object', additionalProperties: false, properties: {} },
        response: { 200: TestResultView, ...errors(400, 401, 403, 404, 413, 415, 500) },
      },
    },
    async (request) => registries.testSaved(orgCaller(request), request.params.id),
  );
}
