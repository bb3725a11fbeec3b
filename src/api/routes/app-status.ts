/**
 * /apps read routes that follow what the operator records: status (optionally waiting for a terminal state, served
 * from the API's App cache), events of the App and its workloads, and the applied-revision history (contract §4.2).
 */
import type { FastifyInstance } from 'fastify';
import { parseDuration } from '../../config.ts';
import { APP_KIND } from '../../core/app-schema.ts';
import { InputError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { eventTime } from '../../kube/index.ts';
import { loadApp } from '../apps/access.ts';
import { AppParams, StatusView } from '../apps/schemas.ts';
import { isTerminal, statusView } from '../apps/view.ts';
import type { ApiServices } from '../services.ts';

/** Longest status wait (contract §8). */
export const STATUS_WAIT_MAX_MS = 120_000;
/** Most events returned (contract §8). */
export const EVENTS_MAX = 50;

/** Registers GET status, events and history of an App. */
export async function appStatusRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  app.get<{ Params: { namespace: string; name: string }; Querystring: { wait?: string } }>(
    '/apps/:namespace/:name/status',
    {
      schema: {
        tags: ['apps'],
        summary: 'Status view; with wait=<duration> (max 120s) blocks until Synced+Healthy, Degraded or Unknown',
        params: AppParams,
        querystring: { type: 'object', additionalProperties: false, properties: { wait: { type: 'string' } } },
        response: { 200: StatusView },
      },
    },
    async (request, reply) => {
      let waitMs = 0;
      if (request.query.wait !== undefined && request.query.wait !== '') {
        const parsed = parseDuration(request.query.wait);
        if (parsed === undefined) throw new InputError('wait must be a duration such as 30s or 2m');
        waitMs = Math.min(parsed, STATUS_WAIT_MAX_MS);
      }
      const { kube, org, resource } = await loadApp(services, request, 'deployment:read');
      if (waitMs === 0 || isTerminal(resource)) return statusView(resource);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), waitMs);
      const onClose = () => controller.abort();
      // A client that hangs up ends the watch at once.
      reply.raw.once('close', onClose);
      try {
        const last = await kube.watchUntil(
          orgNamespace(org.slug),
          resource.metadata.name,
          isTerminal,
          controller.signal,
        );
        return statusView(last ?? resource);
      } finally {
        clearTimeout(timer);
        reply.raw.off('close', onClose);
      }
    },
  );

  app.get<{ Params: { namespace: string; name: string } }>(
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
        },
      },
    },
    async (request) => {
      const { kube, org, resource } = await loadApp(services, request, 'deployment:read');
      const name = resource.metadata.name;
      const appEvents = await kube.events(
        orgNamespace(org.slug),
        (e) => e.involvedObject.kind === APP_KIND && e.involvedObject.name === name,
      );
      const destination = resource.spec.destination;
      // Workload events are read where the workloads run; remote clusters join with cluster registration.
      const names = (resource.status?.resources ?? []).map((r) => r.name);
      const workloadEvents =
        (destination.cluster ?? '') === '' && names.length > 0
          ? await kube.events(destination.namespace, (e) => {
              const involved = e.involvedObject.name ?? '';
              return names.some((n) => involved === n || involved.startsWith(`${n}-`));
            })
          : [];
      const events = [
        ...appEvents.map((e) => ({ e, source: 'app' })),
        ...workloadEvents.map((e) => ({ e, source: 'workload' })),
      ]
        .map(({ e, source }) => ({
          at: eventTime(e),
          type: e.type ?? 'Normal',
          object: `${e.involvedObject.kind ?? ''}/${e.involvedObject.name ?? ''}`,
          reason: e.reason ?? '',
          message: e.message ?? '',
          source,
        }))
        .sort((a, b) => b.at.localeCompare(a.at))
        .slice(0, EVENTS_MAX);
      return { events };
    },
  );

  app.get<{ Params: { namespace: string; name: string } }>(
    '/apps/:namespace/:name/history',
    {
      schema: {
        tags: ['apps'],
        summary: 'Applied revisions, newest first',
        params: AppParams,
        response: {
          200: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              revision: { type: 'string' },
              previous_revisions: { type: 'array', items: { type: 'string' } },
              last_sync_at: { type: ['string', 'null'] },
            },
          },
        },
      },
    },
    async (request) => {
      const { resource } = await loadApp(services, request, 'deployment:read');
      return {
        name: resource.metadata.name,
        revision: resource.status?.revision ?? '',
        previous_revisions: resource.status?.previousRevisions ?? [],
        last_sync_at: resource.status?.lastSyncAt ?? null,
      };
    },
  );
}
