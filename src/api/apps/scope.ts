/**
 * App-level helpers with no service behind them: an App's deployment scope (the RBAC `deployment` scope id), a
 * per-scope permission filter for lists and streams, and the I/O of writing an App's operation through the API's App
 * client.
 */
import type { Caller } from '../../auth/caller.ts';
import { canI } from '../../auth/rbac.ts';
import type { AppResource } from '../../core/app-schema.ts';
import type { OperationIO } from '../../core/app-state.ts';
import { deploymentScopeId } from '../../core/permissions.ts';
import { type KubeApps, StaleVersionError } from '../kube/apps-repo.ts';

/** An App named by a request path: destination namespace and name. */
export interface AppRef {
  namespace: string;
  name: string;
}

/** The deployment scope id `<cluster>/<namespace>` of an App's destination. */
export function scopeOfApp(app: AppResource): string {
  return deploymentScopeId(app.spec.destination.cluster ?? '', app.spec.destination.namespace);
}

/**
 * `scope → may the actor exercise permission there`, deciding each deployment scope once (canI depends only on
 * the scope, and many Apps share one): for lists and streams that filter App by App.
 */
export function scopeFilter(actor: { caller: Caller }, permission: string): (scope: string) => boolean {
  const decided = new Map<string, boolean>();
  return (scope) => {
    let ok = decided.get(scope);
    if (ok === undefined) {
      ok = canI(actor.caller, permission, 'deployment', scope);
      decided.set(scope, ok);
    }
    return ok;
  };
}

/**
 * The I/O of writing an operation (app-state.ts `writeOperation`) through the API's App client: reads go to the
 * apiserver, patches carry the resourceVersion checked (a stale one answers false).
 */
export function operationIO(kube: Pick<KubeApps, 'get' | 'mergePatch'>, namespace: string, name: string): OperationIO {
  return {
    read: () => kube.get(namespace, name),
    patch: async (patch, resourceVersion) => {
      try {
        await kube.mergePatch(namespace, name, patch, resourceVersion);
        return true;
      } catch (err) {
        if (err instanceof StaleVersionError) return false;
        throw err;
      }
    },
  };
}
