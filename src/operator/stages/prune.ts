/**
 * Prune: deletes live objects that carry this App's managed labels (name AND owner namespace) but left the
 * rendered set, across every kind the App ever applied. Objects without the labels are never listed, so never
 * touched. Namespaces created for the App carry a different label and are never pruned.
 */
import { describeError } from '../../core/errors.ts';
import type { AnyObject, ObjectClient } from '../../kube/index.ts';
import { type AppKey, managedSelector } from '../labels.ts';
import { objectKey } from './apply.ts';

export interface PruneResult {
  deleted: string[];
  errors: string[];
}

/** `apiVersion/Kind` of an object, the unit of `status.appliedKinds`. */
export function kindOf(o: { apiVersion: string; kind: string }): string {
  return `${o.apiVersion}/${o.kind}`;
}

/** Splits `apps/v1/Deployment` or `v1/ConfigMap` into apiVersion and kind. */
export function splitKind(k: string): { apiVersion: string; kind: string } {
  const i = k.lastIndexOf('/');
  return { apiVersion: k.slice(0, i), kind: k.slice(i + 1) };
}

/** Every live object of `kinds` carrying the App's labels. */
export async function listManaged(target: ObjectClient, app: AppKey, kinds: Iterable<string>): Promise<AnyObject[]> {
  const out: AnyObject[] = [];
  const seen = new Set<string>();
  for (const k of new Set(kinds)) {
    const { apiVersion, kind } = splitKind(k);
    for (const o of await target.list(apiVersion, kind, managedSelector(app))) {
      const key = objectKey(o);
      if (!seen.has(key)) out.push(o);
      seen.add(key);
    }
  }
  return out;
}

/** Deletes managed objects of `kinds` whose identity is not in `keep`. */
export async function prune(
  target: ObjectClient,
  app: AppKey,
  keep: ReadonlySet<string>,
  kinds: Iterable<string>,
): Promise<PruneResult> {
  const deleted: string[] = [];
  const errors: string[] = [];
  const live = await listManaged(target, app, kinds);
  // Namespaces last: deleting one removes everything in it, which must not race the per-object deletes.
  live.sort((a, b) => Number(a.kind === 'Namespace') - Number(b.kind === 'Namespace'));
  for (const o of live) {
    if (keep.has(objectKey(o)) || o.metadata['deletionTimestamp']) continue;
    const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace };
    try {
      await target.delete(ref);
      deleted.push(`${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
    } catch (err) {
      errors.push(`${o.kind} ${o.metadata.name}: ${describeError(err)}`);
    }
  }
  return { deleted, errors };
}
