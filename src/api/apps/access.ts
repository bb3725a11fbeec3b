/**
 * The steps the App use-cases (./use-cases.ts, ./operation-use-cases.ts, …) are made of: find the caller org's App
 * by the path's destination namespace and name (`locateApp`, the use-case pipeline then checks the permission at
 * the App's deployment scope), check a new destination (`destinationScope`), write through the management cluster's
 * App client, and audit (contract §6.4). App resources live in the cluster, not the database: their audit entries
 * are written once the cluster accepted the write.
 */
import { APP_API_VERSION, APP_KIND, type AppResource, type AppSpec } from '../../core/app-schema.ts';
import { type OperationRequest, writeOperation } from '../../core/app-state.ts';
import type { CreateRequest } from '../../core/create-request.ts';
import { ForbiddenError, NotFoundError, UnavailableError, UnprocessableError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { deploymentScopeId, type ScopeRef } from '../../core/permissions.ts';
import type { KubeApps } from '../kube/apps-repo.ts';
import type { ApiServices } from '../services.ts';
import type { UseCaseContext } from '../use-case.ts';
import { appAuditNote } from './audit-note.ts';
import { type AppRef, operationIO, scopeOfApp } from './scope.ts';

/** The management cluster's App client; UnavailableError (503) when none is configured. */
export function kubeOf(services: ApiServices): KubeApps {
  const kube = services.kube;
  if (!kube) throw new UnavailableError('no management cluster configured (SVC_MGMT_KUBECONFIG is unset)');
  return kube;
}

/** The caller org's App `name` (any destination), or undefined. */
export function findApp(ctx: UseCaseContext, name: string): Promise<AppResource | undefined> {
  return kubeOf(ctx.services).get(orgNamespace(ctx.actor.org.slug), name);
}

/**
 * The org's App `ref.name` whose destination namespace is `ref.namespace`; NotFoundError (404) when absent, in
 * another namespace or another org (they read exactly like absence).
 */
export async function locateApp(ctx: UseCaseContext, ref: AppRef): Promise<AppResource> {
  const app = await findApp(ctx, ref.name);
  if (!app || app.spec.destination.namespace !== ref.namespace) {
    throw new NotFoundError(`app ${ref.namespace}/${ref.name} not found`);
  }
  return app;
}

/** The deployment scope of an App's destination: where its permissions are checked. */
export function appScope(app: AppResource): ScopeRef {
  return { scope: 'deployment', scopeId: scopeOfApp(app) };
}

/**
 * The deployment scope of a new destination, once checked: the cluster is registered in the org (422 otherwise)
 * and the namespace inside its allowlist (403 otherwise).
 */
export async function destinationScope(ctx: UseCaseContext, cluster: string, namespace: string): Promise<ScopeRef> {
  const allowed = await ctx.services.clusters.namespacesOf(ctx.actor.org.id, cluster);
  if (allowed === undefined)
    throw new UnprocessableError(`cluster "${cluster}" is not registered in this organization`);
  if (allowed.length > 0 && !allowed.includes(namespace)) {
    throw new ForbiddenError(`namespace "${namespace}" is outside the allowlist of cluster "${cluster}"`);
  }
  return { scope: 'deployment', scopeId: deploymentScopeId(cluster, namespace) };
}

/** 422 when an image source names a registry (`registryRef`) the org has not registered. */
export async function checkRegistryRef(ctx: UseCaseContext, spec: AppSpec): Promise<void> {
  const ref = spec.source.image?.registryRef;
  if (ref !== undefined && !(await ctx.services.registries.byName(ctx.actor.org.id, ref))) {
    throw new UnprocessableError(`source.image.registryRef: registry "${ref}" is not registered in this organization`);
  }
}

/** Records the audit entry of a change to an App (after the cluster took it). */
export function auditApp(ctx: UseCaseContext, action: string, app: AppResource, details: Record<string, unknown> = {}) {
  return ctx.audit(appAuditNote(action, app, details));
}

/**
 * Creates the App a validated create request asks for in the org's namespace (its destination already authorized)
 * and audits it as `action` with `details`. `annotations` are added to the resource's own
 * (`cd.svc.space/created-by`). 409 when the name is taken.
 */
export async function createAppResource(
  ctx: UseCaseContext,
  parsed: CreateRequest,
  audit: { action: string; details: Record<string, unknown> },
  annotations: Record<string, string> = {},
): Promise<AppResource> {
  await checkRegistryRef(ctx, parsed.spec);
  const created = await kubeOf(ctx.services).create(orgNamespace(ctx.actor.org.slug), {
    apiVersion: APP_API_VERSION,
    kind: APP_KIND,
    metadata: {
      name: parsed.name,
      annotations: { 'cd.svc.space/created-by': ctx.actor.caller.user.id, ...annotations },
    },
    spec: parsed.spec,
  });
  await auditApp(ctx, audit.action, created, audit.details);
  return created;
}

/**
 * Writes an operation onto `app` as the App state module says (one pending per App, 409 otherwise; the write
 * guarded by resourceVersion and retried past changes the operator makes on its own); returns its id.
 */
export function requestOperation(
  ctx: UseCaseContext,
  app: AppResource,
  request: Omit<OperationRequest, 'triggeredBy'>,
): Promise<string> {
  const io = operationIO(kubeOf(ctx.services), orgNamespace(ctx.actor.org.slug), app.metadata.name);
  return writeOperation(io, app, { ...request, triggeredBy: ctx.actor.caller.user.id });
}
