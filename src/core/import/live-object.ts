/**
 * An object read from a cluster, as its author wrote it: what the API server and the controllers add (identity,
 * bookkeeping, observed state, an Argo CD Application's running `operation`) is removed before the mapping, so the
 * ledger reports the author's fields, not the server's. `kubectl.kubernetes.io/last-applied-configuration` goes too:
 * on a Secret applied with kubectl it holds the Secret's data in clear.
 */
import type { Doc } from './types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Metadata the API server sets. */
const SERVER_METADATA = [
  'managedFields',
  'resourceVersion',
  'uid',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
];

/** Annotations kubectl and the API server write. */
const SERVER_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration', 'deployment.kubernetes.io/revision'];

/** A copy of `obj` without server-set metadata, `status`, and an Application's `operation`. */
export function authoredObject(obj: Record<string, unknown>): Doc {
  const { status: _status, ...rest } = obj;
  const out: Doc = { ...rest };
  if (out.kind === 'Application' && typeof out.apiVersion === 'string' && out.apiVersion.startsWith('argoproj.io/')) {
    delete out['operation'];
  }
  if (!isObject(obj['metadata'])) return out;
  const metadata: Record<string, unknown> = { ...obj['metadata'] };
  for (const key of SERVER_METADATA) delete metadata[key];
  if (isObject(metadata['annotations'])) {
    const annotations = { ...metadata['annotations'] };
    for (const key of SERVER_ANNOTATIONS) delete annotations[key];
    if (Object.keys(annotations).length === 0) delete metadata['annotations'];
    else metadata['annotations'] = annotations;
  }
  out['metadata'] = metadata;
  return out;
}
