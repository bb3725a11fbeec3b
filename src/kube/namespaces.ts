/**
 * Creating what must exist without taking it over: a namespace (an App's destination, an org's namespace) or a
 * RoleBinding is created when missing and left as it is when present (someone else may own it). The one way svc
 * creates namespaces, for the operator and the API alike, through the object client (field manager svc-operator).
 */
import type { AnyObject } from '../core/kube-object.ts';
import { isConflict } from './errors.ts';
import type { ObjectClient } from './objects.ts';

/** Creates `obj` unless an object of its kind and name exists there; true when this call created it. */
export async function createUnlessExists(objects: ObjectClient, obj: AnyObject): Promise<boolean> {
  try {
    await objects.create(obj);
    return true;
  } catch (err) {
    if (isConflict(err)) return false;
    throw err;
  }
}

/** Creates the namespace `name` carrying `labels` unless it exists (an existing one is not relabelled); true when created. */
export function ensureNamespace(
  objects: ObjectClient,
  name: string,
  labels: Record<string, string> = {},
): Promise<boolean> {
  const metadata = Object.keys(labels).length > 0 ? { name, labels } : { name };
  return createUnlessExists(objects, { apiVersion: 'v1', kind: 'Namespace', metadata });
}
