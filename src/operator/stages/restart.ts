/**
 * Restart operation: bumps a pod-template annotation on every workload of the App's inventory that it still owns,
 * which makes its controller roll the pods. A merge patch (not apply), so the annotation is not owned by the apply
 * field set and the next sync does not remove it again.
 */

import { type InventoryEntry, refOf } from '../../engine/inventory.ts';
import { type AppKey, isOwnedBy, RESTARTED_AT_ANNOTATION } from '../../engine/labels.ts';
import { isNotFound } from '../../kube/index.ts';
import type { DestinationCache } from '../live/index.ts';

const WORKLOADS = new Set(['apps/Deployment', 'apps/StatefulSet', 'apps/DaemonSet']);

/** Restarts every workload among `entries` still owned by `app`; returns what was restarted (`Kind ns/name`). */
export async function restartWorkloads(
  live: DestinationCache,
  app: AppKey,
  entries: readonly InventoryEntry[],
  at: string,
): Promise<string[]> {
  const done: string[] = [];
  for (const entry of entries) {
    const ref = refOf(entry);
    if (!WORKLOADS.has(`${ref.apiVersion.split('/')[0]}/${ref.kind}`)) continue;
    const obj = await live.get(ref);
    if (!obj || !isOwnedBy(obj, app)) continue;
    try {
      await live.client.mergePatch(ref, {
        spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: at } } } },
      });
    } catch (err) {
      if (isNotFound(err)) continue;
      throw err;
    }
    done.push(`${ref.kind} ${ref.namespace}/${ref.name}`);
  }
  return done;
}
