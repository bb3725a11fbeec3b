/**
 * What the live cache keeps of an object: everything health, drift and the resource tree read, without the
 * bulky parts they do not. Memory matters (thousands of objects per destination), and Secret values have no
 * business living in a long-lived cache.
 */
import type { AnyObject } from '../../kube/index.ts';

/** Written by `kubectl apply` (client-side): a full copy of the object as an annotation. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * A copy of `obj` without `metadata.managedFields`, the last-applied annotation, a Secret's `data`/`stringData`
 * and a CustomResourceDefinition's per-version `schema`; `apiVersion` and `kind` are set (list items lack them).
 * The input is not modified.
 */
export function slim(obj: AnyObject, apiVersion: string, kind: string): AnyObject {
  const { managedFields: _fields, ...metadata } = obj.metadata;
  if (metadata.annotations?.[LAST_APPLIED] !== undefined) {
    const { [LAST_APPLIED]: _last, ...annotations } = metadata.annotations;
    metadata.annotations = annotations;
  }
  const out: AnyObject = { ...obj, apiVersion, kind, metadata };
  if (kind === 'Secret' && apiVersion === 'v1') {
    delete out['data'];
    delete out['stringData'];
  }
  if (kind === 'CustomResourceDefinition') out['spec'] = withoutSchemas(out['spec']);
  return out;
}

function withoutSchemas(spec: unknown): unknown {
  const s = spec as { versions?: Record<string, unknown>[] } | undefined;
  if (!Array.isArray(s?.versions)) return spec;
  return { ...s, versions: s.versions.map(({ schema: _schema, ...v }) => v) };
}
