/**
 * What the live cache keeps of an object: everything health, drift and the resource tree read, without the
 * bulky parts they do not. Memory matters (thousands of objects per destination), and Secret values have no
 * business living in a long-lived cache. Drift (src/engine/drift.ts) reads who owns which field, so the
 * managedFields entries stay, cut to manager, operation, subresource and field set; status-subresource entries go
 * (they never own what svc applies). Field sets name fields, not values, so the objects svc applies from one
 * manifest carry equal ones: each distinct field set is kept once (src/core's Interner).
 */
import { Interner } from '../../core/interner.ts';
import type { FieldSet, ManagedFieldsEntry } from '../../engine/drift.ts';
import type { AnyObject } from '../../kube/index.ts';

/** Written by `kubectl apply` (client-side): a full copy of the object as an annotation. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * A copy of `obj` with `metadata.managedFields` cut to what drift reads (see the module comment), without the
 * last-applied annotation, a Secret's `data`/`stringData` and a CustomResourceDefinition's per-version `schema`;
 * `apiVersion` and `kind` are set (list items lack them). The input is not modified.
 */
export function slim(obj: AnyObject, apiVersion: string, kind: string): AnyObject {
  const { managedFields, ...metadata } = obj.metadata;
  const fields = slimFields(managedFields);
  if (fields.length > 0) metadata['managedFields'] = fields;
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

/** One copy of each distinct field set across every slimmed object of this process. */
const fieldSets = new Interner<FieldSet>();

/** The managedFields entries drift reads, each cut to manager, operation, subresource and (shared) field set. */
function slimFields(entries: unknown): ManagedFieldsEntry[] {
  if (!Array.isArray(entries)) return [];
  const out: ManagedFieldsEntry[] = [];
  for (const e of entries as ManagedFieldsEntry[]) {
    if (e.subresource === 'status') continue;
    out.push({
      ...(e.manager !== undefined ? { manager: e.manager } : {}),
      ...(e.operation !== undefined ? { operation: e.operation } : {}),
      ...(e.subresource ? { subresource: e.subresource } : {}),
      ...(e.fieldsV1 !== undefined ? { fieldsV1: fieldSets.intern(e.fieldsV1) } : {}),
    });
  }
  return out;
}
