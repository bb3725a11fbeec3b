/**
 * `GET /apps/stream`: the caller org's App changes as server-sent events (an addition to the contract, which says no
 * stream exists: docs/compatibility.md). Served by the one fan-out of the App cache (apps/app-events.ts); this route
 * only authenticates, connects the client and keeps it honest: a heartbeat comment every `heartbeatMs`, the caller
 * re-authenticated every `reauthMs` (a revoked session or key ends the stream, changed role bindings apply), and a
 * client that stops reading is dropped (it reconnects with Last-Event-ID).
 */
import sseModule, { type SSEPluginOptions } from '@fastify/sse';
import type { FastifyPluginAsync } from 'fastify';
import { UnavailableError } from '../../core/errors.ts';
import { type Api, principalOf } from '../api.ts';
import type { StreamClient } from '../apps/app-events.ts';
import { appStreamRoute } from '../apps/stream-contract.ts';
import { followApps } from '../apps/use-cases.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

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
  api: Api,
  services: ApiServices,
  options: StreamOptions = STREAM_DEFAULTS,
): Promise<void> {
  await api.register(ssePlugin, { heartbeatInterval: options.heartbeatMs });

  api.get('/apps/stream', { sse: { kind: 'manual' }, schema: appStreamRoute }, async (request, reply) => {
    const hub = services.appEvents;
    if (!hub) throw new UnavailableError('no management cluster configured (SVC_MGMT_KUBECONFIG is unset)');
    const follow = await run(services, followApps, principalOf(request), undefined);
    const headers = { cookie: request.headers.cookie, authorization: request.headers.authorization };
    const raw = reply.raw;
    const client: StreamClient = {
      namespace: follow.namespace,
      may: follow.may,
      write: (frame) => {
        raw.write(frame);
        return raw.writableLength < MAX_PENDING_BYTES;
      },
      close: () => reply.sse.close(),
    };
    const reauth = setInterval(() => {
      services.authenticator
        .authenticate(headers)
        .then((caller) => run(services, followApps, { caller }, undefined))
        .then(
          (again) => {
            if (again.orgId !== follow.orgId) reply.sse.close();
            else client.may = again.may;
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
  });
}
