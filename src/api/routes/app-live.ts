/**
 * /apps routes that read the App's destination on the caller's behalf (`deployment:read`): the diff of what a sync
 * would change (contract §4.2 says 404; svc builds it: docs/compatibility.md), the live resource tree, and Pod logs
 * streamed as text. Parse → DiffService / ResourceService → present.
 */
import type { FastifyInstance } from 'fastify';
import { liveReadsOf } from '../apps/live-reads.ts';
import { LOG_TAIL_MAX, type LogQuery } from '../apps/resource-service.ts';
import { AppParams, appErrors } from '../apps/schemas.ts';
import type { AppRef } from '../apps/scope.ts';
import { orgCaller } from '../context.ts';
import type { ApiServices } from '../services.ts';

const ObjectDiffSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    name: { type: 'string' },
    namespace: { type: 'string' },
    status: { type: 'string', enum: ['same', 'changed', 'missing', 'extra'] },
    live: { type: 'string', description: 'live object as YAML, noise stripped, Secret values masked' },
    desired: { type: 'string', description: 'the server-side apply dry run of the rendered object, as YAML' },
    patch: { type: 'string', description: 'unified diff live → desired' },
    message: { type: 'string' },
  },
} as const;

const TreeNodeSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    parent: { type: ['string', 'null'] },
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    name: { type: 'string' },
    namespace: { type: 'string' },
    health: { type: 'string' },
    message: { type: 'string' },
    sync_status: { type: 'string' },
    created_at: { type: 'string' },
    info: { type: 'object', additionalProperties: true },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

/** Registers GET diff, resources and logs of an App. */
export async function appLiveRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const { diffs, resources } = liveReadsOf(services);

  app.get<{ Params: AppRef }>(
    '/apps/:namespace/:name/diff',
    {
      schema: {
        tags: ['apps'],
        summary:
          'What a sync would change: each rendered object (at the head the operator last observed) dry-run applied on the destination vs live; same, changed, missing, extra; Secret values masked; sync_status by the operator’s own rule',
        params: AppParams,
        response: {
          200: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              namespace: { type: 'string' },
              sync_status: { type: 'string', enum: ['Synced', 'OutOfSync'] },
              drifted: {
                type: 'boolean',
                description: 'Synced, yet live objects were edited out of band (svc does not revert them; a Sync does)',
              },
              recorded_sync_status: { type: 'string' },
              revision: {
                type: 'object',
                properties: {
                  applied: { type: 'string', description: 'status.revision: the last applied revision' },
                  compared: {
                    type: 'string',
                    description: 'the revision rendered: the upstream head the operator last observed',
                  },
                  head: { type: 'string', description: 'the upstream head (fetched at most 5 s before)' },
                },
              },
              summary: {
                type: 'object',
                properties: {
                  same: { type: 'integer' },
                  changed: { type: 'integer' },
                  missing: { type: 'integer' },
                  extra: { type: 'integer' },
                },
              },
              objects: { type: 'array', items: ObjectDiffSchema },
              unified: { type: 'string' },
            },
          },
          ...appErrors({ app: true, also: [502] }),
        },
      },
    },
    async (request) => diffs.diff(orgCaller(request), request.params),
  );

  app.get<{ Params: AppRef }>(
    '/apps/:namespace/:name/resources',
    {
      schema: {
        tags: ['apps'],
        summary: 'Live resource tree: the App’s objects, then their ReplicaSets, Jobs and Pods, each with health',
        params: AppParams,
        response: {
          200: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              health: { type: 'string' },
              nodes: { type: 'array', items: TreeNodeSchema },
            },
          },
          ...appErrors({ app: true, also: [502] }),
        },
      },
    },
    async (request) => resources.tree(orgCaller(request), request.params),
  );

  app.get<{ Params: AppRef; Querystring: LogQuery }>(
    '/apps/:namespace/:name/logs',
    {
      schema: {
        tags: ['apps'],
        summary:
          'Logs of one of the App’s Pods as text/plain (timestamped lines), streamed while follow=true; headers x-svc-pod, x-svc-container and x-svc-pod-count say whose',
        params: AppParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            pod: {
              type: 'string',
              minLength: 1,
              maxLength: 253,
              description: 'default: a Healthy Pod of the App, the newest (x-svc-pod names the one read)',
            },
            container: { type: 'string', minLength: 1, maxLength: 63, description: 'default: the first container' },
            tail: { type: 'string', pattern: '^[0-9]{1,5}$', description: `lines from the end, 1..${LOG_TAIL_MAX}` },
            follow: { type: 'string', enum: ['true', 'false'] },
            since: {
              type: 'string',
              maxLength: 32,
              pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$|^[0-9]+$',
              description: 'only lines newer than this duration (e.g. 10m, 1h; at least 1s)',
            },
          },
        },
        response: {
          200: {
            description: 'timestamped log lines',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...appErrors({ app: true, also: [502] }),
        },
      },
    },
    async (request, reply) => {
      const hangup = new AbortController();
      reply.raw.once('close', () => hangup.abort());
      const log = await resources.logs(orgCaller(request), request.params, request.query, hangup.signal);
      // A broken upstream connection ends the answer rather than failing an answer already under way.
      log.stream.on('error', () => reply.raw.end());
      return reply
        .type('text/plain; charset=utf-8')
        .header('x-svc-pod', log.pod)
        .header('x-svc-container', log.container)
        .header('x-svc-pod-count', String(log.podCount))
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .send(log.stream);
    },
  );
}
