/**
 * /apps routes that read, create, clone, preview and delete Apps (contract §4.2). Apps are App resources in the
 * caller org's namespace `org-<slug>` on the management cluster; nothing about them is stored in the database.
 */
import type { FastifyInstance } from 'fastify';
import { canAnywhere, canI } from '../../auth/rbac.ts';
import type { AppSpec } from '../../core/app-schema.ts';
import { parseCreateRequest } from '../../core/create-request.ts';
import { ForbiddenError, InputError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { auditApp, authorizeDestination, createApp, loadApp } from '../apps/access.ts';
import { findApp, kubeOrThrow, scopeOfApp } from '../apps/lookup.ts';
import { AppObject, AppParams, CreateBody, OpenObject } from '../apps/schemas.ts';
import { appView } from '../apps/view.ts';
import { appListJson } from '../apps/view-json.ts';
import { authorize, orgCaller } from '../context.ts';
import type { ApiServices } from '../services.ts';

/** Registers the /apps read, create, clone, preview and delete routes. */
export async function appRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  app.get(
    '/apps',
    {
      schema: {
        tags: ['apps'],
        summary: 'Apps of the caller org the caller may read',
        response: { 200: { type: 'object', properties: { apps: { type: 'array', items: AppObject } } } },
      },
    },
    async (request, reply) => {
      const kube = kubeOrThrow(services.kube);
      const { caller, org } = orgCaller(request);
      if (!canAnywhere(caller, 'deployment:read')) throw new ForbiddenError('missing permission deployment:read');
      // Sorted by name already, each with its JSON serialized once per resourceVersion by the response schema's
      // own serializer (see KubeApps.listEntries, apps/view-json.ts); JSON bytes are sent as they are.
      const entries = await kube.listEntries(orgNamespace(org.slug));
      // canI depends only on the scope, and many Apps share one: decide each scope once per request.
      const allowed = new Map<string, boolean>();
      const visible = entries.filter((e) => {
        const scope = scopeOfApp(e.app);
        let ok = allowed.get(scope);
        if (ok === undefined) {
          ok = canI(caller, 'deployment:read', 'deployment', scope);
          allowed.set(scope, ok);
        }
        return ok;
      });
      return reply.type('application/json; charset=utf-8').send(appListJson(visible.map((e) => e.json)));
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
      const parsed = parseCreateRequest(request.body);
      const created = await createApp(services, request, parsed, 'app.create', {
        source_type: parsed.spec.source.type,
      });
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
    async (request) => appView((await loadApp(services, request, 'deployment:read')).resource),
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
      const { kube, org, caller, resource } = await loadApp(services, request, 'deployment:manage');
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
      const created = await createApp(services, request, parsed, 'app.clone', {
        from: `${from.spec.destination.namespace}/${from.metadata.name}`,
      });
      return reply.code(201).send(appView(created));
    },
  );
}
