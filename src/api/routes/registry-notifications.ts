/**
 * POST /api/v1/registries/{id}/notifications (beyond the contract; docs/api.md "Registry notifications"): the
 * endpoint a registry's `notifications` configuration posts its events to (distribution's envelope
 * `{"events": [...]}`, media type `application/vnd.docker.distribution.events.v1+json`). A push of a tag runs the
 * tag poller's check at once for the Follow Apps on that registry, repository and tag, instead of waiting for the
 * next poll; a pushed chart version syncs the automated HelmChart Apps on that chart whose range it satisfies
 * (../registries/chart-push.ts).
 *
 * No session or API key: the registry authenticates with the registry's notification token (returned when the
 * registry is created, or rotated), sent as `Authorization: Bearer <token>` through the endpoint's `headers`
 * configuration. 401 without a matching token; 400 for a body that is not an envelope; 200 `{matched, deployed}`.
 */
import type { FastifyInstance } from 'fastify';
import { InputError, UnauthenticatedError } from '../../core/errors.ts';
import { namespaceOfOrg } from '../../store/orgs.ts';
import { ErrorBody } from '../apps/schemas.ts';
import { syncPushedChart } from '../registries/chart-push.ts';
import type { ApiServices } from '../services.ts';

/** The media type distribution posts its event envelopes with. */
export const EVENTS_MEDIA_TYPE = 'application/vnd.docker.distribution.events.v1+json';

/** One event of the envelope, as much of it as svc reads. */
interface RegistryEvent {
  action?: string;
  target?: { repository?: string; tag?: string };
}

/** The pushed `repository:tag` pairs of an envelope, each once. */
export function pushedTags(events: readonly RegistryEvent[]): Array<{ repository: string; tag: string }> {
  const seen = new Map<string, { repository: string; tag: string }>();
  for (const e of events) {
    const repository = e.target?.repository;
    const tag = e.target?.tag;
    if (e.action === 'push' && repository && tag) seen.set(`${repository}:${tag}`, { repository, tag });
  }
  return [...seen.values()];
}

/** Registers the notification endpoint. */
export async function registryNotificationRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  app.addContentTypeParser(EVENTS_MEDIA_TYPE, { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new InputError('the event envelope is not JSON'), undefined);
    }
  });

  app.post<{ Params: { id: string }; Body: { events: RegistryEvent[] } }>(
    '/registries/:id/notifications',
    {
      config: { public: true },
      schema: {
        tags: ['registries'],
        summary:
          'Registry notification endpoint (distribution `notifications`): a pushed tag redeploys the Follow Apps on it at once; authenticated by the registry’s notification token as a Bearer token',
        params: {
          type: 'object',
          required: ['id'],
          properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
        },
        body: {
          type: 'object',
          required: ['events'],
          properties: { events: { type: 'array', maxItems: 1000, items: { type: 'object' } } },
        },
        security: [{ notificationToken: [] }],
        response: {
          200: {
            type: 'object',
            properties: {
              matched: { type: 'integer', description: 'Follow Apps on a pushed tag' },
              deployed: { type: 'array', items: { type: 'string' }, description: 'Apps given a Deploy' },
              synced: {
                type: 'array',
                items: { type: 'string' },
                description: 'HelmChart Apps on a pushed chart version in their range, given a Sync',
              },
            },
          },
          ...Object.fromEntries(
            [
              [400, 'not an event envelope'],
              [401, 'no or a wrong notification token'],
              [413, 'request body over 1 MiB'],
              [415, 'neither JSON nor the events media type'],
              [500, 'internal error'],
            ].map(([s, d]) => [s, { description: d, ...ErrorBody }]),
          ),
        },
      },
    },
    async (request) => {
      const header = request.headers.authorization ?? '';
      const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
      const registry = token ? await services.registries.byNotificationToken(request.params.id, token) : undefined;
      if (!registry) throw new UnauthenticatedError('a valid registry notification token is required');
      const poller = services.tagPoller;
      let matched = 0;
      const deployed: string[] = [];
      const synced: string[] = [];
      const orgNs = services.kube ? await namespaceOfOrg(services.store.db, registry.orgId) : undefined;
      for (const pushed of pushedTags(request.body.events)) {
        // A chart pushed with `helm push`: the HelmChart Apps on it check at once.
        if (services.kube && orgNs) {
          const chartDeps = { kube: services.kube, audit: services.audit, logger: request.log };
          synced.push(
            ...(await syncPushedChart(
              chartDeps,
              { orgId: registry.orgId, orgNamespace: orgNs, host: registry.host },
              pushed,
            )),
          );
        }
        if (!poller) break;
        const report = await poller.poll({
          trigger: 'notification',
          match: (f) =>
            f.orgId === registry.orgId &&
            f.image.registryRef === registry.name &&
            f.image.repository === pushed.repository &&
            f.image.tag === pushed.tag,
        });
        matched += report.apps;
        deployed.push(...report.deployed);
      }
      request.log.info(
        { registry: registry.id, matched, deployed: deployed.length, synced: synced.length },
        'registry notification',
      );
      return { matched, deployed, synced };
    },
  );
}
