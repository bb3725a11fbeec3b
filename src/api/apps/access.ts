/**
 * The steps every App use-case is made of (src/api/apps/*-service.ts): find the caller org's App by the path's
 * destination namespace and name, authorize the caller on its deployment scope (or on a new destination) through
 * `canI`, write through the management cluster's App client, and audit (contract §6.4).
 */

import { APP_API_VERSION, APP_KIND, type AppResource, type AppSpec } from '../../core/app-schema.ts';
import { type OperationRequest, writeOperation } from '../../core/app-state.ts';
import type { CreateRequest } from '../../core/create-request.ts';
import { ForbiddenError, InputError, NotFoundError, UnavailableError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { deploymentScopeId } from '../../core/permissions.ts';
import type { Actor } from '../actor.ts';
import { requirePermission } from '../context.ts';
import type { KubeApps } from '../kube/apps-repo.ts';
import type { ApiServices } from '../services.ts';
import { type AppRef, operationIO, scopeOfApp } from './scope.ts';

/** What an audit entry says about an App. */
function auditTarget(app: AppResource) {
  return {
    name: app.metadata.name,
    namespace: app.spec.destination.namespace,
    cluster: app.spec.destination.cluster ?? '',
    uid: app.metadata.uid,
  };
}

/** Authorize, act on App resources, audit: the building blocks of the App use-cases. */
export class AppAccess {
  readonly services: ApiServices;

  constructor(services: ApiServices) {
    this.services = services;
  }

  /** The management cluster's App client; UnavailableError (503) when none is configured. */
  kube(): KubeApps {
    const kube = this.services.kube;
    if (!kube) throw new UnavailableError('no management cluster configured (SVC_MGMT_KUBECONFIG is unset)');
    return kube;
  }

  /**
   * The org's App `ref.name` whose destination namespace is `ref.namespace`, once `permission` is checked on its
   * deployment scope. NotFoundError (404) when absent, in another namespace or another org (they read exactly like
   * absence); ForbiddenError (403) without the permission.
   */
  async load(actor: Actor, ref: AppRef, permission: string): Promise<AppResource> {
    const app = await this.find(actor, ref.name);
    if (!app || app.spec.destination.namespace !== ref.namespace) {
      throw new NotFoundError(`app ${ref.namespace}/${ref.name} not found`);
    }
    requirePermission(actor, permission, 'deployment', scopeOfApp(app));
    return app;
  }

  /** The org's App named `name` (any destination), unauthorized: callers check the permission they need. */
  find(actor: Actor, name: string): Promise<AppResource | undefined> {
    return this.kube().get(orgNamespace(actor.org.slug), name);
  }

  /**
   * Checks the destination cluster is registered in the org (400 otherwise) and the namespace inside its allowlist
   * (403 otherwise), then that the caller holds `permission` on the destination.
   */
  async authorizeDestination(actor: Actor, permission: string, cluster: string, namespace: string): Promise<void> {
    const allowed = await this.services.clusters.namespacesOf(actor.org.id, cluster);
    if (allowed === undefined) throw new InputError(`cluster "${cluster}" is not registered in this organization`);
    if (allowed.length > 0 && !allowed.includes(namespace)) {
      throw new ForbiddenError(`namespace "${namespace}" is outside the allowlist of cluster "${cluster}"`);
    }
    requirePermission(actor, permission, 'deployment', deploymentScopeId(cluster, namespace));
  }

  /**
   * Creates the App a validated create request asks for in the org's namespace, after checking the destination
   * (`deployment:manage`), and audits it as `action` with `details`. `annotations` are added to the resource's own
   * (`cd.svc.space/created-by`). 409 when the name is taken.
   */
  async create(
    actor: Actor,
    parsed: CreateRequest,
    action: string,
    details: Record<string, unknown>,
    annotations: Record<string, string> = {},
  ): Promise<AppResource> {
    await this.authorizeDestination(actor, 'deployment:manage', parsed.cluster, parsed.namespace);
    await this.checkRegistryRef(actor, parsed.spec);
    const created = await this.kube().create(orgNamespace(actor.org.slug), {
      apiVersion: APP_API_VERSION,
      kind: APP_KIND,
      metadata: { name: parsed.name, annotations: { 'cd.svc.space/created-by': actor.caller.user.id, ...annotations } },
      spec: parsed.spec,
    });
    await this.audit(actor, action, created, details);
    return created;
  }

  /** InputError (400) when an image source names a registry (`registryRef`) the org has not registered. */
  async checkRegistryRef(actor: Actor, spec: AppSpec): Promise<void> {
    const ref = spec.source.image?.registryRef;
    if (ref !== undefined && !(await this.services.registries.byName(actor.org.id, ref))) {
      throw new InputError(`source.image.registryRef: registry "${ref}" is not registered in this organization`);
    }
  }

  /**
   * Writes an operation onto `app` as the App state module says (one pending per App, 409 otherwise; the write
   * guarded by resourceVersion and retried past changes the operator makes on its own); returns its id.
   */
  requestOperation(actor: Actor, app: AppResource, request: Omit<OperationRequest, 'triggeredBy'>): Promise<string> {
    const io = operationIO(this.kube(), orgNamespace(actor.org.slug), app.metadata.name);
    return writeOperation(io, app, { ...request, triggeredBy: actor.caller.user.id });
  }

  /** Records an audit entry `action` about `app` (contract §6.4), with the destination in its details. */
  async audit(actor: Actor, action: string, app: AppResource, details: Record<string, unknown> = {}): Promise<void> {
    const target = auditTarget(app);
    await this.services.audit.record({
      orgId: actor.org.id,
      userId: actor.caller.user.id,
      action,
      resourceType: 'app',
      ...(target.uid ? { resourceId: target.uid } : {}),
      resourceName: target.name,
      details: {
        namespace: target.namespace,
        cluster: target.cluster,
        ...details,
        ...(actor.tool ? { tool: actor.tool } : {}),
      },
    });
  }
}
