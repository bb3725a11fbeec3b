/**
 * /repositories (docs/api.md "Repositories"; issue 24): GET/POST /repositories, GET/PATCH/DELETE
 * /repositories/{id}, GET /repositories/{id}/references, GET /repositories/{id}/charts, POST /repositories/test and
 * POST /repositories/{id}/test. Reads need `repository:read`; writes and tests `repository:manage` with a session
 * (API keys get 403, like registries). Parse → RepositoryService → present; credentials are write-only.
 */
import type { FastifyInstance } from 'fastify';
import type { RepositoryRecord } from '../../store/repositories.ts';
import { ErrorBody } from '../apps/schemas.ts';
import { orgCaller } from '../context.ts';
import { MAX_PEM_BYTES, type RepositoryInput } from '../repositories/input.ts';
import { type CreateRepositoryBody, RepositoryService, type UpdateRepositoryBody } from '../repositories/service.ts';
import { repositoryView } from '../repositories/view.ts';
import type { ApiServices } from '../services.ts';

const nullableText = { type: ['string', 'null'] } as const;

const RepositoryView = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    type: { type: 'string', enum: ['git', 'helm'] },
    url: { type: 'string' },
    insecure: { type: 'boolean' },
    username: nullableText,
    has_password: { type: 'boolean' },
    has_ssh_private_key: { type: 'boolean' },
    known_hosts: nullableText,
    ca: nullableText,
    tls_client_cert: nullableText,
    has_tls_client_key: { type: 'boolean' },
    status: { type: 'string', enum: ['untested', 'connected', 'error'] },
    status_detail: { type: 'string' },
    last_tested_at: nullableText,
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

const TestResultView = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['connected', 'error'] },
    latency: { type: 'integer', description: 'milliseconds' },
    details: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        authenticated: { type: 'boolean' },
        found: { type: 'integer', description: 'refs (git), charts (HTTP index), 1 (an OCI registry that answered)' },
      },
    },
    error: { type: 'string' },
    errorClass: {
      type: 'string',
      enum: ['dns', 'tls', 'connect', 'timeout', 'refused', 'auth', 'hostkey', 'permission', 'notfound', 'provider'],
    },
  },
} as const;

const pem = (description: string) =>
  ({ type: ['string', 'null'], minLength: 1, maxLength: MAX_PEM_BYTES, description }) as const;

const connection = {
  url: {
    type: 'string',
    minLength: 1,
    maxLength: 2048,
    description:
      'git: an http(s)://, ssh://, git:// or user@host:path URL; helm: an http(s):// repository or oci:// registry path. Covers every source URL below it.',
  },
  insecure: { type: 'boolean', description: 'plain http for an oci:// repository (refused in production mode)' },
  username: { type: ['string', 'null'], minLength: 1, maxLength: 256 },
  password: { type: ['string', 'null'], minLength: 1, maxLength: 4096, description: 'password or token; write-only' },
  ssh_private_key: pem('SSH private key (OpenSSH or PEM) for ssh URLs; write-only'),
  known_hosts: pem('known_hosts lines of the SSH hosts (an unknown host key fails the fetch)'),
  ca: pem('PEM CA certificates to trust'),
  tls_client_cert: pem('PEM client certificate'),
  tls_client_key: pem('PEM client key; write-only'),
} as const;

const IdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

const ERRORS: Record<number, string> = {
  400: 'invalid input (body, or a host refused by the outbound policy)',
  401: 'no valid session or API key',
  403: 'missing permission, or an API key on a session-only route',
  404: 'no such repository in this organization',
  409: 'name taken, or the repository is used by apps',
  413: 'request body over 1 MiB',
  415: 'request body that is not JSON',
  500: 'internal error',
  502: 'the repository could not be read',
};

function errors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, { description: ERRORS[s], ...ErrorBody }]));
}

/** Registers the repository routes. */
export async function repositoryRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const repositories = new RepositoryService(services);
  const view = (r: RepositoryRecord) => repositoryView(r);
  const manage = { sessionOnly: true } as const;
  const tags = ['repositories'];

  app.get(
    '/repositories',
    {
      schema: {
        tags,
        summary: 'Repositories of the caller org (repository:read)',
        response: {
          200: { type: 'object', properties: { repositories: { type: 'array', items: RepositoryView } } },
          ...errors(401, 403, 500),
        },
      },
    },
    async (request) => ({ repositories: (await repositories.list(orgCaller(request))).map(view) }),
  );

  app.get<{ Params: { id: string } }>(
    '/repositories/:id',
    {
      schema: {
        tags,
        summary: 'One repository (repository:read)',
        params: IdParams,
        response: { 200: RepositoryView, ...errors(400, 401, 403, 404, 500) },
      },
    },
    async (request) => view(await repositories.get(orgCaller(request), request.params.id)),
  );

  app.get<{ Params: { id: string } }>(
    '/repositories/:id/references',
    {
      schema: {
        tags,
        summary: 'The apps using a repository: by repositoryRef, or covered by its URL (repository:read)',
        params: IdParams,
        response: {
          200: {
            type: 'object',
            properties: {
              references: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { app: { type: 'string' }, via: { type: 'string', enum: ['repositoryRef', 'url'] } },
                },
              },
            },
          },
          ...errors(400, 401, 403, 404, 500),
        },
      },
    },
    async (request) => ({ references: await repositories.references(orgCaller(request), request.params.id) }),
  );

  app.get<{ Params: { id: string }; Querystring: { chart?: string } }>(
    '/repositories/:id/charts',
    {
      schema: {
        tags,
        summary:
          'The charts of a Helm repository with their versions, newest first (repository:read); an oci:// repository lists the versions of ?chart= only',
        params: IdParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            chart: { type: 'string', minLength: 1, maxLength: 250, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              charts: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { name: { type: 'string' }, versions: { type: 'array', items: { type: 'string' } } },
                },
              },
            },
          },
          ...errors(400, 401, 403, 404, 500, 502),
        },
      },
    },
    async (request) => ({
      charts: await repositories.charts(orgCaller(request), request.params.id, request.query.chart),
    }),
  );

  app.post<{ Body: CreateRepositoryBody }>(
    '/repositories',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Register a repository and its credentials (repository:manage, session only)',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'type', 'url'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 63 },
            type: { type: 'string', enum: ['git', 'helm'] },
            ...connection,
          },
        },
        response: { 201: RepositoryView, ...errors(400, 401, 403, 409, 413, 415, 500) },
      },
    },
    async (request, reply) => reply.code(201).send(view(await repositories.create(orgCaller(request), request.body))),
  );

  app.patch<{ Params: { id: string }; Body: UpdateRepositoryBody }>(
    '/repositories/:id',
    {
      config: manage,
      schema: {
        tags,
        summary:
          'Change a repository (repository:manage, session only); omitted fields stay, null clears; 409 renaming one apps name',
        params: IdParams,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: { name: { type: 'string', minLength: 1, maxLength: 63 }, ...connection },
        },
        response: { 200: RepositoryView, ...errors(400, 401, 403, 404, 409, 413, 415, 500) },
      },
    },
    async (request) => view(await repositories.update(orgCaller(request), request.params.id, request.body)),
  );

  app.delete<{ Params: { id: string } }>(
    '/repositories/:id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete a repository (repository:manage, session only); 409 naming the apps that use it',
        params: IdParams,
        response: {
          200: { type: 'object', properties: { deleted: { type: 'boolean' }, id: { type: 'string' } } },
          ...errors(400, 401, 403, 404, 409, 500),
        },
      },
    },
    async (request) => {
      const deleted = await repositories.delete(orgCaller(request), request.params.id);
      return { deleted: true, id: deleted.id };
    },
  );

  app.post<{ Body: RepositoryInput }>(
    '/repositories/test',
    {
      config: manage,
      schema: {
        tags,
        summary:
          'Test unsaved fields: git ls-remote, the chart index, or the OCI registry API; 200 with {status:"connected",latency,details} or {status:"error",error,errorClass}',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'url'],
          properties: { type: { type: 'string', enum: ['git', 'helm'] }, ...connection },
        },
        response: { 200: TestResultView, ...errors(400, 401, 403, 413, 415, 500) },
      },
    },
    async (request) => repositories.testUnsaved(orgCaller(request), request.body),
  );

  app.post<{ Params: { id: string } }>(
    '/repositories/:id/test',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Test a saved repository and record the result (status connected or error)',
        params: IdParams,
        body: { type: 'object', additionalProperties: false, properties: {} },
        response: { 200: TestResultView, ...errors(400, 401, 403, 404, 413, 415, 500) },
      },
    },
    async (request) => repositories.testSaved(orgCaller(request), request.params.id),
  );
}
