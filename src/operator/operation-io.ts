/**
 * How the operator's own writers of operations (the push receiver, the AppSet rolling sync) read and patch an App
 * for `writeOperation` (core/app-state.ts): through the management cluster's object client, each patch guarded by
 * the resourceVersion read. The API has its own over its App repository (src/api/apps/scope.ts `operationIO`).
 */
import { APP_API_VERSION, APP_KIND } from '../core/app-names.ts';
import type { AppResource } from '../core/app-schema.ts';
import type { OperationIO } from '../core/app-state.ts';
import { isConflict, type ObjectClient } from '../kube/index.ts';

/** The OperationIO of `app` (its namespace and name) over `mgmt`: a stale resourceVersion resolves false. */
export function appOperationIO(mgmt: ObjectClient, app: AppResource): OperationIO {
  const ref = {
    apiVersion: APP_API_VERSION,
    kind: APP_KIND,
    namespace: app.metadata.namespace ?? '',
    name: app.metadata.name,
  };
  return {
    read: async () => (await mgmt.get(ref)) as unknown as AppResource | undefined,
    patch: async (patch, resourceVersion) => {
      try {
        await mgmt.mergePatch(ref, { metadata: { resourceVersion }, ...patch });
        return true;
      } catch (err) {
        if (isConflict(err)) return false;
        throw err;
      }
    },
  };
}
