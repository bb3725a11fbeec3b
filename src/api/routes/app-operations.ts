/**
 * /apps operation and workload-control routes (contract §4.2): sync, deploy, rollback, restart, approve, promote,
 * scale, freeze, unfreeze. Each writes the App resource, then an audit entry named as in contract §6.4.
 */
import type { FastifyInstance } from 'fastify';
import type { AppResource } from '../../core/app-schema.ts';
import { ConflictError, InputError, NotFoundError, UpstreamError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { auditApp, loadApp } from '../apps/access.ts';
import { scopeOfApp } from '../apps/lookup.ts';
import { requestOperation } from '../apps/operations.ts';
import { AppParams, EmptyBody, OperationResult } from '../apps/schemas.ts';
import { authorize } from '../context.ts';
import type { ApiServices } from '../services.ts';

type Params = { namespace: string; name: string };

function appRef(a: AppResource) {
  return {
    name: a.metadata.name,
    namespace: a.spec.destination.namespace,
    cluster: a.spec.destination.cluster ?? '',
    uid: a.metadata.uid,
  };
}

/** Registers the operation routes. */
export async function appOperationRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const simple = [
    { path: 'sync', kind: 'Sync', action: 'app.sync', summary: 'Request a sync; 409 while an operation is pending' },
    {
      path: 'restart',
      kind: 'Restart',
      action: 'app.restart',
      summary: 'Restart every managed workload (template annotation bump); 409 while an operation is pending',
    },
  ] as const;
  for (const op of simple) {
    app.post<{ Params: Params }>(
      `/apps/:namespace/:name/${op.path}`,
      {
        schema: {
          tags: ['apps'],
          summary: op.summary,
          params: AppParams,
          body: EmptyBody,
          response: { 200: OperationResult },
        },
      },
      async (request) => {
        const { kube, org, caller, resource } = await loadApp(services, request, 'deployment:sync');
        const id = await requestOperation(kube, org.slug, resource, { kind: op.kind, triggeredBy: caller.user.id });
        await auditApp(services, caller, org, op.action, appRef(resource), { operation_id: id });
        return { message: `${op.kind} requested`, name: resource.metadata.name, operation_id: id };
      },
    );
  }

  app.post<{ Params: Params; Body: { tag?: string } | undefined }>(
    '/apps/:namespace/:name/deploy',
    {
      schema: {
        tags: ['apps'],
        summary: 'Deploy: re-resolve the image tag live (image apps may pass a new tag); Git apps sync to head',
        params: AppParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { tag: { type: 'string', minLength: 1, maxLength: 128 } },
        },
        response: { 200: OperationResult },
      },
    },
    async (request) => {
      const { kube, org, caller, resource } = await loadApp(services, request, 'deployment:sync');
      const tag = request.body?.tag;
      const image = resource.spec.source.image;
      if (tag !== undefined && (resource.spec.source.type !== 'Image' || !image)) {
        throw new InputError('deploy with a tag applies to image-source apps only');
      }
      const specPatch = tag !== undefined ? { source: { image: { tag } } } : undefined;
      const id = await requestOperation(kube, org.slug, resource, {
        kind: 'Deploy',
        triggeredBy: caller.user.id,
        ...(specPatch ? { specPatch } : {}),
      });
      const effectiveTag = tag ?? image?.tag ?? '';
      await auditApp(services, caller, org, 'app.deploy', appRef(resource), { operation_id: id, tag: effectiveTag });
      return { message: 'Deploy requested', name: resource.metadata.name, tag: effectiveTag, operation_id: id };
    },
  );

  app.post<{ Params: Params; Body: { revision: string } }>(
    '/apps/:namespace/:name/rollback',
    {
      schema: {
        tags: ['apps'],
        summary: 'Roll back to a revision from /history; 409 while an operation is pending',
        params: AppParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['revision'],
          properties: { revision: { type: 'string', minLength: 1 } },
        },
        response: { 200: OperationResult },
      },
    },
    async (request) => {
      const { kube, org, caller, resource } = await loadApp(services, request, 'deployment:sync');
      const { revision } = request.body;
      const known = [resource.status?.revision, ...(resource.status?.previousRevisions ?? [])];
      if (!known.includes(revision)) throw new InputError(`revision ${revision} is not in the app's history`);
      const id = await requestOperation(kube, org.slug, resource, {
        kind: 'Rollback',
        revision,
        triggeredBy: caller.user.id,
      });
      await auditApp(services, caller, org, 'app.rollback', appRef(resource), { operation_id: id, revision });
      return { message: 'Rollback requested', name: resource.metadata.name, revision, operation_id: id };
    },
  );

  app.post<{ Params: Params }>(
    '/apps/:namespace/:name/approve',
    {
      schema: {
        tags: ['apps'],
        summary: 'Release a sync held by requiresApproval, carrying the staged revision; 409 when nothing is held',
        params: AppParams,
        body: EmptyBody,
        response: { 200: OperationResult },
      },
    },
    async (request) => {
      const { kube, org, caller, resource } = await loadApp(services, request, 'deployment:sync');
      const state = resource.status?.operationState;
      if (state?.phase !== 'Held') throw new ConflictError(`app ${resource.metadata.name} has no held sync to approve`);
      const id = await requestOperation(kube, org.slug, resource, {
        kind: 'Approve',
        triggeredBy: caller.user.id,
        ...(state.revision ? { revision: state.revision } : {}),
      });
      const revision = state.revision ?? '';
      await auditApp(services, caller, org, 'app.approve', appRef(resource), { operation_id: id, revision });
      return { message: 'Approve requested', name: resource.metadata.name, revision, operation_id: id };
    },
  );

  app.post<{ Params: Params; Querystring: { to: string } }>(
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
        response: { 200: OperationResult },
      },
    },
    async (request) => {
      const { kube, org, resource: from } = await loadApp(services, request, 'deployment:read');
      const target = await kube.get(orgNamespace(org.slug), request.query.to);
      if (!target) throw new NotFoundError(`target app ${request.query.to} not found`);
      const { caller } = authorize(request, 'deployment:sync', 'deployment', scopeOfApp(target));
      if (from.spec.source.type !== 'Image' || target.spec.source.type !== 'Image' || !target.spec.source.image) {
        throw new ConflictError('promote needs image-source apps on both sides (scope mismatch)');
      }
      if (from.metadata.name === target.metadata.name) throw new ConflictError('cannot promote an app onto itself');
      const digest = from.status?.revision ?? '';
      if (!digest.startsWith('sha256:')) {
        throw new ConflictError(`app ${from.metadata.name} has no applied image digest to promote`);
      }
      const repository = target.spec.source.image.repository;
      if (!(await services.digests.has(repository, digest))) {
        throw new UpstreamError(`digest ${digest} is not present in ${repository}`);
      }
      const id = await requestOperation(kube, org.slug, target, {
        kind: 'Deploy',
        revision: digest,
        triggeredBy: caller.user.id,
      });
      await auditApp(services, caller, org, 'app.promote', appRef(target), {
        operation_id: id,
        from: from.metadata.name,
        digest,
      });
      return {
        message: 'Promote requested',
        from: from.metadata.name,
        to: target.metadata.name,
        digest,
        operation_id: id,
      };
    },
  );

  app.post<{ Params: Params; Body: { replicas: number } }>(
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
        response: { 200: OperationResult },
      },
    },
    async (request) => {
      const { kube, org, caller, resource } = await loadApp(services, request, 'deployment:manage');
      const image = resource.spec.source.image;
      if (resource.spec.source.type !== 'Image' || !image) {
        throw new InputError('scale applies to image-source apps only');
      }
      if (image.autoscaling?.enabled) {
        throw new ConflictError(`app ${resource.metadata.name} has autoscaling enabled; scale is refused`);
      }
      const { replicas } = request.body;
      const id = await requestOperation(kube, org.slug, resource, {
        kind: 'Sync',
        triggeredBy: caller.user.id,
        specPatch: { source: { image: { workload: { replicas } } } },
      });
      await auditApp(services, caller, org, 'app.scale', appRef(resource), { operation_id: id, replicas });
      return { message: 'Scale requested', name: resource.metadata.name, replicas, operation_id: id };
    },
  );

  for (const frozen of [true, false]) {
    app.post<{ Params: Params }>(
      `/apps/:namespace/:name/${frozen ? 'freeze' : 'unfreeze'}`,
      {
        schema: {
          tags: ['apps'],
          summary: frozen ? 'Freeze: hold every sync, manual and automated' : 'Unfreeze: allow syncs again',
          params: AppParams,
          body: EmptyBody,
          response: {
            200: { type: 'object', properties: { frozen: { type: 'boolean' }, name: { type: 'string' } } },
          },
        },
      },
      async (request) => {
        const { kube, org, caller, resource } = await loadApp(services, request, 'deployment:manage');
        await kube.mergePatch(orgNamespace(org.slug), resource.metadata.name, { spec: { freeze: frozen } });
        await auditApp(services, caller, org, frozen ? 'app.freeze' : 'app.unfreeze', appRef(resource));
        return { frozen, name: resource.metadata.name };
      },
    );
  }
}
