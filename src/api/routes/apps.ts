/**
 * /apps routes that read, create, clone, preview and delete Apps (contract §4.2): parse → AppService → present.
 */
import type { FastifyInstance } from 'fastify';
import type { AppRef } from '../apps/access.ts';
import { AppObject, AppParams, appErrors, CreateBody, OpenObject } from '../apps/schemas.ts';
import { AppService } from '../apps/service.ts';
import { appView } from '../apps/view.ts';
import { appListJson } from '../apps/view-json.ts';
import { orgCaller } from '../context.ts';
import type { ApiServices } from '../services.ts';

/** Registers the /apps read, create, clone, preview and delete routes. */
export async function appRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const apps = new AppService(services);

  app.get(
    '/apps',
    {
      schema: {
        tags: ['apps'],
        summary: 'Apps of the caller org the caller may read',
        response: {
          200: { type: 'object', properties: { apps: { type: 'array', items: AppObject } } },
          ...appErrors(),
        },
      },
    },
    async (request, reply) => {
      // Each app's JSON is serialized once per resourceVersion by the response schema's own serializer (see
      // KubeApps.listEntries, apps/view-json.ts); the bytes are sent as they are.
      const items = await apps.listJson(orgCaller(request));
      return reply.type('application/json; charset=utf-8').send(appListJson(items));
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
