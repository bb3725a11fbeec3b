/**
 * The live resource tree of an App: the objects it manages, then what Kubernetes made of them, linked by
 * `ownerReferences` (Deployment → ReplicaSet → Pod, StatefulSet / DaemonSet / Job → Pod), each with its health from
 * the per-kind checks (./health), or the operator's recorded health where a custom check applies. Pure: the service reads the objects, this links them.
 */
import type { AnyObject } from '../kube/index.ts';
import { resourceHealth } from './health/index.ts';
import type { LiveObject } from './health/status.ts';

/** One node of the tree. */
export interface TreeNode {
  /** The object's uid, or `kind/namespace/name` for an object that does not exist. */
  id: string;
  /** The id of the owning node; null for the App's own objects. */
  parent: string | null;
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  health: string;
  message: string;
  /** For the App's own objects: Synced / OutOfSync as the operator recorded it; '' for derived objects. */
  sync_status: string;
  created_at: string;
  /** A few facts worth showing: replicas, ready, images, phase, restarts, containers. */
  info: Record<string, string | number | string[]>;
  /** The object's annotations (without kubectl's last-applied copy). */
  annotations: Record<string, string>;
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function annotationsOf(obj: AnyObject): Record<string, string> {
  const { [LAST_APPLIED]: _last, ...rest } = obj.metadata.annotations ?? {};
  return rest;
}

/** One of the App's own objects: what it should be (status.resources / inventory) and what is live. */
export interface ManagedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  syncStatus: string;
  live: AnyObject | undefined;
  /**
   * The health the operator recorded for it (status.resources), used instead of the built-in check when a custom
   * (CEL) check applies to its kind: only the operator evaluates those, in its sandbox.
   */
  recorded?: { health: string; message: string };
}

type Owned = AnyObject & {
  metadata: AnyObject['metadata'] & { ownerReferences?: { uid: string; controller?: boolean }[] };
};

function infoOf(obj: AnyObject): TreeNode['info'] {
  const spec = (obj['spec'] ?? {}) as Record<string, unknown>;
  const status = (obj['status'] ?? {}) as Record<string, unknown>;
  const info: TreeNode['info'] = {};
  if (typeof spec['replicas'] === 'number') info['replicas'] = spec['replicas'];
  if (typeof status['readyReplicas'] === 'number') info['ready'] = status['readyReplicas'];
  const template = (spec['template'] as { spec?: { containers?: { image?: string }[] } } | undefined)?.spec;
  const podSpec = obj.kind === 'Pod' ? (spec as { containers?: { name?: string; image?: string }[] }) : template;
  const images = (podSpec?.containers ?? []).map((c) => c.image ?? '').filter((i) => i !== '');
  if (images.length > 0) info['images'] = images;
  if (obj.kind === 'Pod') {
    info['containers'] = ((spec['containers'] ?? []) as { name: string }[]).map((c) => c.name);
    if (typeof status['phase'] === 'string') info['phase'] = status['phase'];
    const statuses = (status['containerStatuses'] ?? []) as { restartCount?: number }[];
    info['restarts'] = statuses.reduce((n, c) => n + (c.restartCount ?? 0), 0);
  }
  return info;
}

function node(
  obj: AnyObject,
  parent: string | null,
  syncStatus: string,
  recorded?: ManagedObject['recorded'],
): TreeNode {
  const assessed = resourceHealth(
    { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name },
    obj as unknown as LiveObject,
  );
  const health = recorded ? { status: recorded.health, message: recorded.message } : assessed;
  return {
    id: obj.metadata.uid ?? `${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`,
    parent,
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name,
    namespace: obj.metadata.namespace ?? '',
    health: health.status,
    message: health.message ?? '',
    sync_status: syncStatus,
    created_at: String(obj.metadata['creationTimestamp'] ?? ''),
    info: infoOf(obj),
    annotations: annotationsOf(obj),
  };
}

/**
 * The tree: every managed object (Missing when not live), then every candidate child (ReplicaSets, Pods of the
 * same namespaces) whose controlling owner is already in the tree, level by level.
 */
export function buildTree(managed: readonly ManagedObject[], candidates: readonly AnyObject[]): TreeNode[] {
  const nodes: TreeNode[] = [];
  const inTree = new Set<string>();
  for (const m of managed) {
    if (m.live) {
      const n = node({ ...m.live, apiVersion: m.apiVersion, kind: m.kind }, null, m.syncStatus, m.recorded);
      nodes.push(n);
      inTree.add(n.id);
    } else {
      nodes.push({
        id: `${m.kind}/${m.namespace}/${m.name}`,
        parent: null,
        apiVersion: m.apiVersion,
        kind: m.kind,
        name: m.name,
        namespace: m.namespace,
        health: 'Missing',
        message: `${m.kind} ${m.name}: not found`,
        sync_status: m.syncStatus,
        created_at: '',
        info: {},
        annotations: {},
      });
    }
  }
  let pending = candidates.filter((c) => c.metadata.uid !== undefined && !inTree.has(c.metadata.uid));
  for (let added = true; added && pending.length > 0; ) {
    added = false;
    const rest: AnyObject[] = [];
    for (const c of pending) {
      const refs = (c as Owned).metadata.ownerReferences ?? [];
      const owner = refs.find((r) => r.controller) ?? refs[0];
      if (owner && inTree.has(owner.uid)) {
        const n = node(c, owner.uid, '');
        nodes.push(n);
        inTree.add(n.id);
        added = true;
      } else {
        rest.push(c);
      }
    }
    pending = rest;
  }
  return nodes;
}
