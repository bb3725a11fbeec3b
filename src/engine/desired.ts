/**
 * The desired set of an App as svc applies it: the rendered objects stamped with the App's managed labels, in apply
 * order (Namespaces, then CRDs, then the rest), and the hash of that set (status.objectHash) that tells whether what
 * would be applied changed. Pure; the operator applies this set and the API's diff compares against it.
 */
import { createHash } from 'node:crypto';
import type { AnyObject } from '../kube/index.ts';
import { type KubeObject, SECRET_DIGEST_ANNOTATION } from '../render/index.ts';
import { type AppKey, managedLabels } from './labels.ts';

const ORDER: Record<string, number> = { Namespace: 0, CustomResourceDefinition: 1 };

/** The apply rank of an object: Namespaces (0) before CRDs (1) before everything else (2). */
export function applyRank(o: { kind: string }): number {
  return ORDER[o.kind] ?? 2;
}

/** The rendered objects with svc's labels, in apply order (stable within a rank). */
export function prepareObjects(objects: KubeObject[], app: AppKey): AnyObject[] {
  const labelled = objects.map((o) => ({
    ...o,
    metadata: { ...o.metadata, labels: { ...(o.metadata.labels ?? {}), ...managedLabels(app) } },
  }));
  return labelled
    .map((o, i) => ({ o, i, rank: applyRank(o) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((x) => x.o);
}

/**
 * sha256 of the prepared set: changes whenever what would be applied changes. A Secret carrying a keyed digest of its
 * values (decrypted from SOPS, see SECRET_DIGEST_ANNOTATION) is hashed by that digest instead of its values.
 */
export function hashObjects(objects: AnyObject[]): string {
  const hashed = objects.map((o) => {
    if (o.kind !== 'Secret' || o.metadata.annotations?.[SECRET_DIGEST_ANNOTATION] === undefined) return o;
    const { data: _data, stringData: _stringData, ...rest } = o;
    return rest;
  });
  return createHash('sha256').update(JSON.stringify(hashed)).digest('hex');
}
