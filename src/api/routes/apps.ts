/**
 * /apps routes that read, create, clone, preview and delete Apps (contract §4.2). Apps are App resources in the
 * caller org's namespace `org-<slug>` on the management cluster; nothing about them is stored in the database.
 */

import type { CoreV1Event } from '@kubernetes/client-node';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller, CallerOrg } from '../../auth/caller.ts';
import { canAnywhere, canI } from '../../auth/rbac.ts';
import { parseDuration } from '../../config.ts';
import { APP_API_VERSION, APP_KIND, type AppResource, type AppSpec } from '../../core/app-schema.ts';
import { parseCreateRequest } from '../../core/create-request.ts';
import { ForbiddenError, InputError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { deploymentScopeId } from '../../core/permissions.ts';
import { findApp, kubeOrThrow, scopeOfApp } from '../apps/lookup.ts';
import { AppObject, AppParams, CreateBody, OpenObject, StatusView } from '../apps/schemas.ts';
import { appView, isTerminal, statusView } from '../apps/view.ts';
import { authorize, orgCaller } from '../context.ts';
import type { ApiServices } from '../services.ts';

/** Longest status wait (contract §8). */
export const STATUS_WAIT_MAX_MS = 120_000;
/** Most events returned (contract §8). */
export const EVENTS_MAX = 50;

type AppRequest = FastifyRequest<{ Params: { namespace: string; name: string } }>;

/** Records an audit entry about an App. */
export async function auditApp(
  services: ApiServices,
  caller: Caller,
  org: CallerOrg,
  action: string,
  app: { name: string; namespace: string; cluster: string; uid?: string | undefined },
  details: Record<string, unknown> = {},
): Promise<void> {
  await services.audit.record({
    orgId: org.id,
    userId: caller.user.id,
    action,
    resourceType: 'app',
    ...(app.uid ? { resourceId: app.uid } : {}),
    resourceName: app.name,
    details: { namespace: app.namespace, cluster: app.cluster, ...details },
  });
}

/**
 * Checks the destination cluster is registered in the org (400 otherwise) and the namespace inside its allowlist
 * (403 otherwise), then that the caller holds `permission` on the destination.
 */
export async function authorizeDestination(
  services: ApiServices,
  request: FastifyRequest,
  permission: string,
  cluster: string,
  namespace: string,
): Promise<{ caller: Caller; org: CallerOrg }> {
  const { org } = orgCaller(request);
  const allowed = await services.clusters.namespacesOf(org.id, cluster);
  if (allowed === undefined) throw new InputError(`cluster "${cluster}" is not registered in this organization`);
  if (allowed.length > 0 && !allowed.includes(namespace)) {
    throw new ForbiddenError(`namespace "${namespace}" is outside the allowlist of cluster "${cluster}"`);
  }
  return authorize(request, permission, 'deployment', deploymentScopeId(cluster, namespace));
}

/** The App resource a validated create request asks for. */
function newAppResource(name: string, spec: AppSpec, caller: Caller): AppResource {
  return {
    apiVersion: APP_API_VERSION,
    kind: APP_KIND,
    metadata: { name, annotations: { 'cd.svc.space/created-by': caller.user.id } },
    spec,
  };
}

function eventTime(e: CoreV1Event): string {
  const t = e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp;
  return t instanceof Date ? t.toISOString() : t ? String(t) : '';
}

/** Registers the /apps read, create, clone, preview and delete routes. */
export async function appRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  /** Loads the App named by the path and checks `permission` on its destination. */
  async function loadApp(request: AppRequest, permission: string) {
    const kube = kubeOrThrow(services.kube);
    const { org } = orgCaller(request);
    const resource = await findApp(kube, org.slug, request.params.namespace, request.params.name);
    const { caller } = authorize(request, permission, 'deployment', scopeOfApp(resource));
    return { kube, org, caller, resource };
  }

  app.get(
    '/apps',
    {
      schema: {
        tags: ['apps'],
        summary: 'Apps of the caller org the caller may read',
        response: { 200: { type: 'object', properties: { apps: { type: 'array', items: AppObject } } } },
      },
    },
    async (request) => {
      const kube = kubeOrThrow(services.kube);
      const { caller, org } = orgCaller(request);
      if (!canAnywhere(caller, 'deployment:read')) throw new ForbiddenError('missing permission deployment:read');
      const items = await kube.list(orgNamespace(org.slug));
      const visible = items.filter((a) => canI(caller, 'deployment:read', 'deployment', scopeOfApp(a)));
      visible.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
      return { apps: visible.map(appView) };
    },
  );

  app.post(
    '/apps',
    {
      schema: {
        tags: ['apps'],
        summary: 'Create an App (201); 409 when the name is taken',
        body: CreateBody,
        response: { 201: AppObject },
      },
    },
    async (request, reply) => {
      const kube = kubeOrThrow(services.kube);
      const parsed = parseCreateRequest(request.body);
      const { caller, org } = await authorizeDestination(
        services,
        request,
        'deployment:manage',
        parsed.cluster,
        parsed.namespace,
      );
      const created = await kube.create(orgNamespace(org.slug), newAppResource(parsed.name, parsed.spec, caller));
      await auditApp(
        services,
        caller,
        org,
        'app.create',
        { ...parsed, uid: created.metadata.uid },
        { source_type: parsed.spec.source.type },
      );
      return reply.code(201).send(appView(created));
    },
  );

  app.post<{ Querystring: { app?: string } }>(
    '/apps/preview',
    {
      schema: {
        tags: ['apps'],
        summary: 'Validate a create payload and resolve its image digest; writes nothing',
        querystring: { type: 'object', additionalProperties: false, properties: { app: { type: 'string' } } },
        body: CreateBody,
        response: {
          200: {
            type: 'object',
            properties: {
              valid: { type: 'boolean' },
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
        },
      },
    },
    async (request) => {
      const kube = kubeOrThrow(services.kube);
      const parsed = parseCreateRequest(request.body);
      const { org } = await authorizeDestination(
        services,
        request,
        'deployment:manage',
        parsed.cluster,
        parsed.namespace,
      );
      const source = parsed.spec.source;
      let resolved = { image: '', tag: '', digest: '', ref: '' };
      if (source.type === 'Image' && source.image) {
        const { repository, tag } = source.image;
        const digest = (await services.digests.resolve(repository, tag)) ?? '';
        resolved = { image: repository, tag, digest, ref: digest ? `${repository}@${digest}` : `${repository}:${tag}` };
      } else if (source.type === 'Git' && source.git) {
        resolved = { ...resolved, ref: `refs/heads/${source.git.branch ?? 'main'}` };
      }
      const answer: { valid: boolean; resolved: typeof resolved; spec: AppSpec; current?: AppSpec } = {
        valid: true,
        resolved,
        spec: parsed.spec,
      };
      const current = request.query.app;
      if (current !== undefined) {
        const existing = await kube.get(orgNamespace(org.slug), current);
        if (!existing) throw new InputError(`app "${current}" not found`);
        const { operation: _op, ...spec } = existing.spec;
        answer.current = spec;
      }
      return answer;
    },
  );

  app.get<{ Params: { namespace: string; name: string } }>(
    '/apps/:namespace/:name',
    { schema: { tags: ['apps'], summary: 'One App', params: AppParams, response: { 200: AppObject } } },
    async (request) => appView((await loadApp(request, 'deployment:read')).resource),
  );

  app.delete<{ Params: { namespace: string; name: string } }>(
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
        },
      },
    },
    async (request) => {
      const { kube, org, caller, resource } = await loadApp(request, 'deployment:manage');
      await kube.delete(orgNamespace(org.slug), resource.metadata.name);
      await auditApp(services, caller, org, 'app.delete', {
        name: resource.metadata.name,
        namespace: resource.spec.destination.namespace,
        cluster: resource.spec.destination.cluster ?? '',
        uid: resource.metadata.uid,
      });
      return { deleted: true, name: resource.metadata.name, namespace: resource.spec.destination.namespace };
    },
  );

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
      const { kube, org, resource } = await loadApp(request, 'deployment:read');
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
      const { kube, org, resource } = await loadApp(request, 'deployment:read');
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
      const { resource } = await loadApp(request, 'deployment:read');
      return {
        name: resource.metadata.name,
        revision: resource.status?.revision ?? '',
        previous_revisions: resource.status?.previousRevisions ?? [],
        last_sync_at: resource.status?.lastSyncAt ?? null,
      };
    },
  );

  app.post<{ Params: { namespace: string; name: string }; Body: { name: string; namespace?: string } }>(
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
        response: { 201: AppObject },
      },
    },
    async (request, reply) => {
      const kube = kubeOrThrow(services.kube);
      const { org } = orgCaller(request);
      const from = await findApp(kube, org.slug, request.params.namespace, request.params.name);
      authorize(request, 'deployment:read', 'deployment', scopeOfApp(from));
      const payload: Record<string, unknown> = {
        name: request.body.name,
        namespace: request.body.namespace ?? from.spec.destination.namespace,
        cluster: from.spec.destination.cluster ?? '',
        source: from.spec.source,
      };
      if (from.spec.syncPolicy) payload['sync_policy'] = from.spec.syncPolicy;
      const parsed = parseCreateRequest(payload);
      const { caller } = await authorizeDestination(
        services,
        request,
        'deployment:manage',
        parsed.cluster,
        parsed.namespace,
      );
      const created = await kube.create(orgNamespace(org.slug), newAppResource(parsed.name, parsed.spec, caller));
      await auditApp(
        services,
        caller,
        org,
        'app.clone',
        { ...parsed, uid: created.metadata.uid },
        { from: `${from.spec.destination.namespace}/${from.metadata.name}` },
      );
      return reply.code(201).send(appView(created));
    },
  );
}
