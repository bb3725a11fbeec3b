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
import { InputError, UnauthenticatedError } from '../../core/errors.ts';
import { namespaceOfOrg } from '../../store/orgs.ts';
import type { Api } from '../api.ts';
import { syncPushedChart } from '../registries/chart-push.ts';
import { notificationsRoute } from '../registries/contract.ts';
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
export async function registryNotificationRoutes(app: Api, services: ApiServices): Promise<void> {
  app.addContentTypeParser(EVENTS_MEDIA_TYPE, { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new InputError('the event envelope is not JSON'), undefined);
    }
  });

  app.post(
    '/registries/:id/notifications',
    { config: { public: true }, schema: notificationsRoute },
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
