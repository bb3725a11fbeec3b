/**
 * `GET /apps/stream`: the caller org's App changes as server-sent events (an addition to the contract, which says no
 * stream exists: docs/compatibility.md). Served by the one fan-out of the App cache (apps/app-events.ts); this route
 * only authenticates, connects the client and keeps it honest: a heartbeat comment every `heartbeatMs`, the caller
 * re-authenticated every `reauthMs` (a revoked session or key ends the stream, changed role bindings apply), and a
 * client that stops reading is dropped (it reconnects with Last-Event-ID).
 */
import sseModule, { type SSEPluginOptions } from '@fastify/sse';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { canAnywhere } from '../../auth/rbac.ts';
import { ForbiddenError, UnavailableError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import type { StreamClient } from '../apps/app-events.ts';
import { appErrors } from '../apps/schemas.ts';
import { scopeFilter } from '../apps/scope.ts';
import { orgCaller } from '../context.ts';
import type { ApiServices } from '../services.ts';

/** Timing of the stream. */
export interface StreamOptions {
  heartbeatMs: number;
  reauthMs: number;
}

export const STREAM_DEFAULTS: StreamOptions = { heartbeatMs: 15_000, reauthMs: 60_000 };

/**
 * The plugin as its CommonJS module exports it: that function is wrapped to share its route hook with the routes
 * registered beside it (its `.default` and `.fastifySSE` are the unwrapped one, whose hook would see no route here).
 */
const ssePlugin = sseModule as unknown as FastifyPluginAsync<SSEPluginOptions>;

/** Bytes a client may leave unread before it is dropped. */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;

/** Registers GET /apps/stream. */
export async function appStreamRoutes(
  app: FastifyInstance,
  services: ApiServices,
  options: StreamOptions = STREAM_DEFAULTS,
): Promise<void> {
  await app.register(ssePlugin, { heartbeatInterval: options.heartbeatMs });

  app.get<{ Querystring: { since?: string } }>(
    '/apps/stream',
    {
      sse: { kind: 'manual' },
      schema: {
        tags: ['apps'],
        summary:
          'Server-sent events of the App changes the caller may read (event `app`: {type: upsert|delete, app}); resumable with Last-Event-ID or ?since=<resource_version of a list page>; `reset` when it cannot resume exactly; `ready` once live; heartbeat comments',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            since: {
              type: 'string',
              pattern: '^[0-9]{1,20}(~[0-9]{1,20})?$',
              description: 'the event id to resume after when no Last-Event-ID header is sent',
            },
          },
        },
        response: {
          200: {
            description: 'the event stream',
            // Each event as an SSE parser sees it: `data` is JSON text ({type, app} for `app`; {reason} for `reset`;
            // {resource_version} for `ready`).
            content: {
              'text/event-stream': {
                schema: {
                  type: 'object',
                  required: ['event', 'data'],
                  properties: {
                    event: { type: 'string', enum: ['app', 'reset', 'ready'] },
                    data: { type: 'string' },
                    id: { type: 'string' },
                  },
                },
              },
            },
          },
          ...appErrors(),
        },
      },
    },
    async (request, reply) => {
      const actor = orgCaller(request);
      const hub = services.appEvents;
      if (!hub) throw new UnavailableError('no management cluster configured (SVC_MGMT_KUBECONFIG is unset)');
      if (!canAnywhere(actor.caller, 'deployment:read')) throw new ForbiddenError('missing permission deployment:read');
      const headers = { cookie: request.headers.cookie, authorization: request.headers.authorization };
      const raw = reply.raw;
      const client: StreamClient = {
        namespace: orgNamespace(actor.org.slug),
        may: scopeFilter(actor, 'deployment:read'),
        write: (frame) => {
          raw.write(frame);
          return raw.writableLength < MAX_PENDING_BYTES;
        },
        close: () => reply.sse.close(),
      };
      const reauth = setInterval(() => {
        services.authenticator.authenticate(headers).then(
          (caller) => {
            if (caller.org?.id !== actor.org.id || !canAnywhere(caller, 'deployment:read')) reply.sse.close();
            else client.may = scopeFilter({ caller }, 'deployment:read');
          },
          () => reply.sse.close(),
        );
      }, options.reauthMs);
      reauth.unref();
      reply.sse.onClose(() => {
        clearInterval(reauth);
        hub.disconnect(client);
      });
      reply.sse.keepAlive();
      reply.sse.sendHeaders();
      raw.write('retry: 2000\n\n');
      const lastEventId = request.headers['last-event-id'];
      hub.connect(client, typeof lastEventId === 'string' ? lastEventId : request.query.since);
      return reply;
    },
  );
}
