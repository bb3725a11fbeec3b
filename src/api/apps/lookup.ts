/** Finding an org's App by the path's destination namespace and name, and the RBAC scope of an App. */
import type { AppResource } from '../../core/app-schema.ts';
import { NotFoundError, UnavailableError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { deploymentScopeId } from '../../core/permissions.ts';
import type { KubeApps } from '../kube/apps-repo.ts';

/** The management-cluster client, or UnavailableError when none is configured. */
export function kubeOrThrow(kube: KubeApps | undefined): KubeApps {
  if (!kube) throw new UnavailableError('no management cluster configured (SVC_MGMT_KUBECONFIG is unset)');
  return kube;
}

/**
 * The org's App `name` whose destination namespace is `namespace`. NotFoundError when absent or when the
 * destination namespace differs (so another namespace, or another org, reads exactly like absence).
 */
export async function findApp(kube: KubeApps, orgSlug: string, namespace: string, name: string): Promise<AppResource> {
  const app = await kube.get(orgNamespace(orgSlug), name);
  if (!app || app.spec.destination.namespace !== namespace) {
    throw new NotFoundError(`app ${namespace}/${name} not found`);
  }
  return app;
}

/** The deployment scope id `<cluster>/<namespace>` of an App's destination. */
export function scopeOfApp(app: AppResource): string {
  return deploymentScopeId(app.spec.destination.cluster ?? '', app.spec.destination.namespace);
}
