/**
 * /apps operation and workload-control routes (contract §4.2): sync, deploy, rollback, restart, approve, promote,
 * scale, freeze, unfreeze. Parse → AppOperations / AppService → present; one pending operation per App (409 while
 * another is requested, running or held).
 */
import type { FastifyInstance } from 'fastify';
import { AppOperations } from '../apps/operation-service.ts';
import { AppParams, appErrors, EmptyBody, OperationResult } from '../apps/schemas.ts';
import type { AppRef } from '../apps/scope.ts';
import { AppService } from '../apps/service.ts';
import { orgCaller } from '../context.ts';
import type { ApiServices } from '../services.ts';

/** Registers the operation routes. */
export async function appOperationRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const operations = new AppOperations(services);
  const apps = new AppService(services);
  const answers = (...also: number[]) => ({ 200: OperationResult, ...appErrors({ body: true, app: true, also }) });

  app.post<{ Params: AppRef }>(
    '/apps/:namespace/:name/sync',
    {
      schema: {
        tags: ['apps'],
        summary: 'Request a sync; 409 while another operation is requested, running or held',
        params: AppParams,
        body: EmptyBody,
        response: answers(409),
      },
    },
    async (request) => operations.sync(orgCaller(request), request.params),
  );

  app.post<{ Params: AppRef }>(
    '/apps/:namespace/:name/restart',
    {
      schema: {
        tags: ['apps'],
        summary: 'Restart every managed workload (template annotation bump); 409 while an operation is pending',
        params: AppParams,
        body: EmptyBody,
        response: answers(409),
      },
    },
    async (request) => operations.restart(orgCaller(request), request.params),
  );

  app.post<{ Params: AppRef; Body: { tag?: string } | undefined }>(
    '/apps/:namespace/:name/deploy',
    {
      schema: {
        tags: ['apps'],
        summary: 'Deploy: re-resolve the source live (image apps may pass a new tag); Git apps sync to head',
        params: AppParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { tag: { type: 'string', minLength: 1, maxLength: 128 } },
        },
        response: answers(409),
      },
    },
    async (request) => operations.deploy(orgCaller(request), request.params, request.body?.tag),
  );

  app.post<{ Params: AppRef; Body: { revision: string } }>(
    '/apps/:namespace/:name/rollback',
    {
      schema: {
        tags: ['apps'],
        summary: 'Roll back to a revision from /history (400 otherwise); 409 while an operation is pending',
        params: AppParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['revision'],
          properties: { revision: { type: 'string', minLength: 1 } },
        },
        response: answers(409),
      },
    },
    async (request) => operations.rollback(orgCaller(request), request.params, request.body.revision),
  );

  app.post<{ Params: AppRef }>(
    '/apps/:namespace/:name/approve',
    {
      schema: {
        tags: ['apps'],
        summary: 'Release a sync held by requiresApproval, carrying the staged revision; 409 unless one is held',
        params: AppParams,
        body: EmptyBody,
        response: answers(409),
      },
    },
    async (request) => operations.approve(orgCaller(request), request.params),
  );

  app.post<{ Params: AppRef; Querystring: { to: string } }>(
    '/apps/:namespace/:name/promote',
    {
      schema: {
        tags: ['apps'],
        summary:
          'Copy this image app’s applied digest onto app `to` as a Deploy with a byte-equal pin; 409 on scope mismatch, 502 when the digest is absent on the target registry',
        params: AppParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['to'],
          properties: { to: { type: 'string', minLength: 1 } },
        },
        body: EmptyBody,
        response: answers(409, 502),
      },
    },
    async (request) => operations.promote(orgCaller(request), request.params, request.query.to),
  );

  app.post<{ Params: AppRef; Body: { replicas: number } }>(
    '/apps/:namespace/:name/scale',
    {
      schema: {
        tags: ['apps'],
        summary: 'Set the replicas of an image app and sync; 409 while autoscaling is enabled',
        params: AppParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['replicas'],
          properties: { replicas: { type: 'integer', minimum: 0, maximum: 1000 } },
        },
        response: answers(409),
      },
    },
    async (request) => operations.scale(orgCaller(request), request.params, request.body.replicas),
  );

  for (const frozen of [true, false]) {
    app.post<{ Params: AppRef }>(
      `/apps/:namespace/:name/${frozen ? 'freeze' : 'unfreeze'}`,
      {
        schema: {
          tags: ['apps'],
          summary: frozen ? 'Freeze: hold every sync, manual and automated' : 'Unfreeze: allow syncs again',
          params: AppParams,
          body: EmptyBody,
          response: {
            200: { type: 'object', properties: { frozen: { type: 'boolean' }, name: { type: 'string' } } },
            ...appErrors({ body: true, app: true }),
          },
        },
      },
      async (request) => {
        const changed = await apps.setFrozen(orgCaller(request), request.params, frozen);
        return { frozen, name: changed.metadata.name };
      },
    );
  }
}
