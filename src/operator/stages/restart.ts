/**
 * Restart operation: bumps a pod-template annotation on every managed workload, which makes its controller roll
 * the pods. A merge patch (not apply), so the annotation is not owned by the apply field set and the next sync
 * does not remove it again.
 */
import type { AnyObject, ObjectClient } from '../../kube/index.ts';
import { RESTARTED_AT_ANNOTATION } from '../labels.ts';

const WORKLOADS = new Set(['apps/Deployment', 'apps/StatefulSet', 'apps/DaemonSet']);

/** Restarts every workload among `objects`; returns what was restarted (`Kind ns/name`). */
export async function restartWorkloads(target: ObjectClient, objects: AnyObject[], at: string): Promise<string[]> {
  const done: string[] = [];
  for (const o of objects) {
    const group = o.apiVersion.split('/')[0];
    if (!WORKLOADS.has(`${group}/${o.kind}`)) continue;
    const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace };
    await target.mergePatch(ref, {
      spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: at } } } },
    });
    done.push(`${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);
  }
  return done;
}
