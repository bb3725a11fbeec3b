/**
 * /apps read routes that follow what the operator records (contract §4.2): status (optionally waiting for a
 * terminal state), events of the App and its workloads, and the applied-revision history. Parse →
 * AppStatusService → present.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../log.ts';
import { AppParams, appErrors, StatusView } from '../apps/schemas.ts';
import type { AppRef } from '../apps/scope.ts';
import { AppStatusService, waitMsOf } from '../apps/status-service.ts';
import { statusView } from '../apps/view.ts';
import { orgCaller } from '../context.ts';
import type { ApiServices } from '../services.ts';

/** Registers GET status, events and history of an App. */
export async function appStatusRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const status = new AppStatusService(services, app.log as Logger);

  app.get<{ Params: AppRef; Querystring: { wait?: string } }>(
    '/apps/:namespace/:name/status',
    {
      schema: {
        tags: ['apps'],
        summary:
          'Status view; with wait=<duration> (max 120s) blocks until Synced+Healthy, Degraded, Unknown, Stalled, Failed or Held',
        params: AppParams,
        querystring: { type: 'object', additionalProperties: false, properties: { wait: { type: 'string' } } },
        response: { 200: StatusView, ...appErrors({ app: true }) },
      },
    },
    async (request, reply) => {
      const waitMs = waitMsOf(request.query.wait);
      // A client that hangs up ends the wait at once.
      const hangup = new AbortController();
      const onClose = () => hangup.abort();
      reply.raw.once('close', onClose);
      try {
        return statusView(await status.status(orgCaller(request), request.params, waitMs, hangup.signal));
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );

  app.get<{ Params: AppRef }>(
    '/apps/:namespace/:name/events',
    {
      schema: {
        tags: ['apps'],
        summary: 'Kubernetes events of the App and its workloads, newest first, at most 50',
        params: AppParams,
        response: {
          200: {
            type: 'object',
            properties: {
              events: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    at: { type: 'string' },
                    type: { type: 'string' },
                    object: { type: 'string' },
                    reason: { type: 'string' },
                    message: { type: 'string' },
                    source: { type: 'string' },
                  },
                },
              },
            },
          },
          ...appErrors({ app: true }),
        },
      },
    },
    async (request) => ({ events: await status.events(orgCaller(request), request.params) }),
  );

  app.get<{ Params: AppRef }>(
    '/apps/:namespace/:name/history',
    {
      schema: {
        tags: ['apps'],
        summary:
          'Applied revisions, newest first; revision_tags (image apps): the tag and image each digest came from, which rollback writes back',
        params: AppParams,
        response: {
          200: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              revision: { type: 'string' },
              previous_revisions: { type: 'array', items: { type: 'string' } },
              last_sync_at: { type: ['string', 'null'] },
              revision_tags: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { revision: { type: 'string' }, tag: { type: 'string' }, image: { type: 'string' } },
                },
              },
            },
          },
          ...appErrors({ app: true }),
        },
      },
    },
    async (request) => status.history(orgCaller(request), request.params),
  );
}
