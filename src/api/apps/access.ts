/**
 * What every /apps route does around its domain step: find the App by path and check the caller's permission on
 * its destination, check a new destination, build a new App resource, and write the audit entry.
 */
import type { FastifyRequest } from 'fastify';
import type { Caller, CallerOrg } from '../../auth/caller.ts';
import { APP_API_VERSION, APP_KIND, type AppResource } from '../../core/app-schema.ts';
import type { CreateRequest } from '../../core/create-request.ts';
import { ForbiddenError, InputError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { deploymentScopeId } from '../../core/permissions.ts';
import { authorize, orgCaller } from '../context.ts';
import type { KubeApps } from '../kube/apps-repo.ts';
import type { ApiServices } from '../services.ts';
import { findApp, kubeOrThrow, scopeOfApp } from './lookup.ts';

/** A request addressing one App by destination namespace and name. */
export type AppRequest = FastifyRequest<{ Params: { namespace: string; name: string } }>;

/**
 * Loads the App named by the path (404 when absent, in another namespace or another org) and checks `permission`
 * on its deployment scope (403).
 */
export async function loadApp(
  services: ApiServices,
  request: AppRequest,
  permission: string,
): Promise<{ kube: KubeApps; org: CallerOrg; caller: Caller; resource: AppResource }> {
  const kube = kubeOrThrow(services.kube);
  const { org } = orgCaller(request);
  const resource = await findApp(kube, org.slug, request.params.namespace, request.params.name);
  const { caller } = authorize(request, permission, 'deployment', scopeOfApp(resource));
  return { kube, org, caller, resource };
}

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

/**
 * Creates the App a validated create request asks for in the caller org's namespace, after checking the
 * destination (see authorizeDestination, with `deployment:manage`), and audits it as `action` with `details`.
 * `annotations` are added to the resource's own (`cd.svc.space/created-by`). Returns the stored resource;
 * 409 when the name is taken.
 */
export async function createApp(
  services: ApiServices,
  request: FastifyRequest,
  parsed: CreateRequest,
  action: string,
  details: Record<string, unknown>,
  annotations: Record<string, string> = {},
): Promise<AppResource> {
  const kube = kubeOrThrow(services.kube);
  const { caller, org } = await authorizeDestination(
    services,
    request,
    'deployment:manage',
    parsed.cluster,
    parsed.namespace,
  );
  const created = await kube.create(orgNamespace(org.slug), {
    apiVersion: APP_API_VERSION,
    kind: APP_KIND,
    metadata: { name: parsed.name, annotations: { 'cd.svc.space/created-by': caller.user.id, ...annotations } },
    spec: parsed.spec,
  });
  await auditApp(services, caller, org, action, { ...parsed, uid: created.metadata.uid }, details);
  return created;
}
