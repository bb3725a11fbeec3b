/**
 * /apps routes that read, create, clone, preview and delete Apps (contract §4.2): parse → AppService → present.
 */
import type { FastifyInstance } from 'fastify';
import { LIST_LIMIT_MAX, LIST_SORTS, type ListQueryParams, parseListQuery } from '../apps/list-query.ts';
import { AppObject, AppParams, appErrors, CreateBody, OpenObject } from '../apps/schemas.ts';
import type { AppRef } from '../apps/scope.ts';
import { AppService } from '../apps/service.ts';
import { appView } from '../apps/view.ts';
import { appListJson } from '../apps/view-json.ts';
import { orgCaller } from '../context.ts';
import type { ApiServices } from '../services.ts';

/** The query of `GET /apps` (list-query.ts checks the values further: 400 with a message). */
const ListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 253, description: 'case-insensitive text in name, namespace, cluster or source' },
    sync: { type: 'string', maxLength: 64, description: 'comma-separated sync statuses, e.g. OutOfSync,Unknown' },
    health: { type: 'string', maxLength: 64, description: 'comma-separated health values, e.g. Degraded,Missing' },
    cluster: { type: 'string', maxLength: 63, description: 'destination cluster; empty = the management cluster' },
    namespace: { type: 'string', maxLength: 63, description: 'destination namespace' },
    sort: { type: 'string', enum: [...LIST_SORTS], description: 'default name; health and sync put the worst first' },
    limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: `page size 1..${LIST_LIMIT_MAX}, default 100` },
    cursor: { type: 'string', maxLength: 1024, description: 'next_cursor of the previous page (same sort)' },
  },
} as const;

/** Registers the /apps read, create, clone, preview and delete routes. */
export async function appRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const apps = new AppService(services);

  app.get<{ Querystring: ListQueryParams }>(
    '/apps',
    {
      schema: {
        tags: ['apps'],
        summary:
          'Apps of the caller org the caller may read. Without a query: every one, sorted by name, as `{apps}`. With any query parameter: one page (filters, sort, cursor) with total, next_cursor and resource_version',
        querystring: ListQuerySchema,
        response: {
          200: {
            type: 'object',
            properties: {
              apps: { type: 'array', items: AppObject },
              total: { type: 'integer', description: 'Apps matching the filters, all pages (paged answers only)' },
              next_cursor: {
                type: ['string', 'null'],
                description: 'cursor of the next page; null on the last (paged answers only)',
              },
              resource_version: {
                type: 'string',
                description:
                  'the App cache version this page is as of: GET /apps/stream?since=<it> misses no change after it (paged answers only)',
              },
            },
          },
          ...appErrors(),
        },
      },
    },
    async (request, reply) => {
      // Each app's JSON is serialized once per resourceVersion by the response schema's own serializer (see
      // KubeApps.listEntries, apps/view-json.ts); the bytes are sent as they are.
      const query = parseListQuery(request.query);
      const page = await apps.listPage(orgCaller(request), query);
      const fields = query.paged
        ? { total: page.total, next_cursor: page.nextCursor, resource_version: page.resourceVersion }
        : undefined;
      return reply.type('application/json; charset=utf-8').send(appListJson(page.items, fields));
    },
  );

  app.post(
    '/apps',
    {
      schema: {
        tags: ['apps'],
        summary: 'Create an App (201); 400 for a source type that cannot be deployed; 409 when the name is taken',
        body: CreateBody,
        response: { 201: AppObject, ...appErrors({ body: true, also: [409] }) },
      },
    },
    async (request, reply) => reply.code(201).send(appView(await apps.create(orgCaller(request), request.body))),
  );

  app.post<{ Querystring: { app?: string } }>(
    '/apps/preview',
    {
      schema: {
        tags: ['apps'],
        summary:
          'Validate a create payload (as create does) and resolve its source (an image tag to its digest; valid:false with the registry error when it cannot be resolved); writes nothing',
        querystring: { type: 'object', additionalProperties: false, properties: { app: { type: 'string' } } },
        body: CreateBody,
        response: {
          200: {
            type: 'object',
            properties: {
              valid: { type: 'boolean' },
              error: { type: 'string' },
              error_class: { type: 'string' },
              resolved: {
                type: 'object',
                properties: {
                  image: { type: 'string' },
                  tag: { type: 'string' },
                  digest: { type: 'string' },
                  ref: { type: 'string' },
                },
              },
              spec: OpenObject,
              current: OpenObject,
            },
          },
          ...appErrors({ body: true, also: [409] }),
        },
      },
    },
    async (request) => apps.preview(orgCaller(request), request.body, request.query.app),
  );

  app.get<{ Params: AppRef }>(
    '/apps/:namespace/:name',
    {
      schema: {
        tags: ['apps'],
        summary: 'One App',
        params: AppParams,
        response: { 200: AppObject, ...appErrors({ app: true }) },
      },
    },
    async (request) => appView(await apps.get(orgCaller(request), request.params)),
  );

  app.delete<{ Params: AppRef }>(
    '/apps/:namespace/:name',
    {
      schema: {
        tags: ['apps'],
        summary: 'Delete an App (the operator stops managing its resources); audited as app.delete',
        params: AppParams,
        response: {
          200: {
            type: 'object',
            properties: { deleted: { type: 'boolean' }, name: { type: 'string' }, namespace: { type: 'string' } },
          },
          ...appErrors({ app: true }),
        },
      },
    },
    async (request) => {
      const deleted = await apps.delete(orgCaller(request), request.params);
      return { deleted: true, name: deleted.metadata.name, namespace: deleted.spec.destination.namespace };
    },
  );

  app.post<{ Params: AppRef; Body: { name: string; namespace?: string } }>(
    '/apps/:namespace/:name/clone',
    {
      schema: {
        tags: ['apps'],
        summary: 'Copy source, sync policy and destination onto a new App (201); it starts unsynced',
        params: AppParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: { type: 'string' }, namespace: { type: 'string' } },
        },
        response: { 201: AppObject, ...appErrors({ body: true, app: true, also: [409] }) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(appView(await apps.clone(orgCaller(request), request.params, request.body))),
  );
}
