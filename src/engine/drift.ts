/**
 * Live drift: whether an object as it is live still holds what svc applied, judged on the fields svc owns.
 *
 * Server-side apply records, per field manager, the set of fields it owns (`metadata.managedFields[].fieldsV1`).
 * When another writer changes a field svc applied (`kubectl scale`, `kubectl edit`, a controller, a forced apply
 * under another manager), the apiserver moves that field's ownership to that writer; when a field is removed, it
 * leaves svc's set. So "drifted" is exactly: a field of the desired object that svc-operator's Apply entry no
 * longer owns, or the object is gone. The apiserver did the normalisation (quantities, defaults, int-or-string),
 * so nothing here compares values, and a field another writer set to the value svc applied stays shared (no
 * drift). The walk follows the desired object and svc's field set together: maps by `f:<key>`, associative lists
 * by `k:{...}` (an item matches when every key field it states is equal), sets by `v:<value>`, atomic maps and
 * lists (a node without children) and scalars by their presence. Pure; no I/O. The same rule serves the operator's sync status and selfHeal and the
 * API's diff route (one place).
 */
import { type AnyObject, FIELD_MANAGER, type ObjectRef } from '../kube/index.ts';

/** One `metadata.managedFields` entry, as the live cache keeps it (./slim.ts in the operator keeps these fields). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsV1?: FieldSet;
}

/** A `fieldsV1` node: `f:<field>`, `k:<json key>`, `v:<json value>`, `i:<index>` or `.` → child node. */
export type FieldSet = { [segment: string]: FieldSet };

/** How one object drifted. */
export interface ObjectDrift {
  ref: ObjectRef;
  /** `missing`: the object is gone; `changed`: svc no longer owns `fields`. */
  kind: 'missing' | 'changed';
  /** The lost fields, readable (`spec.replicas`, `spec.template.spec.containers[name=web].image`); empty if missing. */
  fields: string[];
  /** The other managers that now own a lost field (`kubectl`, `kube-controller-manager`, …), sorted. */
  takenBy: string[];
}

/** What the walk of one object collects. */
interface Lost {
  /** Readable path → the raw fieldsV1 segments leading to it (to find the manager that owns it now). */
  fields: Map<string, string[]>;
}

/** Root fields svc never owns or the apiserver never keeps (identity, status, write-only stringData). */
const SKIP_ROOT = new Set(['apiVersion', 'kind', 'status']);
const SKIP_METADATA = new Set(['name', 'namespace', 'generateName', 'creationTimestamp', 'resourceVersion', 'uid']);

/** svc-operator's Apply entry of a live object (the main resource, not a subresource). */
export function ownedBy(live: AnyObject, manager: string = FIELD_MANAGER): FieldSet | undefined {
  return managedFieldsOf(live).find(
    (e) => e.manager === manager && e.operation === 'Apply' && (e.subresource ?? '') === '',
  )?.fieldsV1;
}

/** The managedFields entries of a live object ([] when it has none, e.g. an object slimmed without them). */
export function managedFieldsOf(live: AnyObject): ManagedFieldsEntry[] {
  const entries = live.metadata['managedFields'];
  return Array.isArray(entries) ? (entries as ManagedFieldsEntry[]) : [];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** True for a value that states nothing svc would own on its own (null, {}, []). */
function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}

/** The `k:{...}` child of `owned` an item of an associative list matches, if any. */
function keyedChild(owned: FieldSet, item: Record<string, unknown>): [string, FieldSet] | undefined {
  for (const [segment, child] of Object.entries(owned)) {
    if (!segment.startsWith('k:')) continue;
    let key: Record<string, unknown>;
    try {
      key = JSON.parse(segment.slice(2)) as Record<string, unknown>;
    } catch {
      continue;
    }
    // A key field the item does not state was defaulted by the apiserver (a port's protocol): it matches.
    const matches = Object.entries(key).every(
      ([f, v]) => !(f in item) || JSON.stringify(item[f]) === JSON.stringify(v),
    );
    if (matches) return [segment, child];
  }
  return undefined;
}

/** A readable name of a list item: `[name=web]` from its key, else its index. */
function itemLabel(segment: string, index: number): string {
  try {
    const key = JSON.parse(segment.slice(2)) as Record<string, unknown>;
    return `[${Object.entries(key)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',')}]`;
  } catch {
    return `[${index}]`;
  }
}

/** Walks a desired list against its owned node. */
function walkList(desired: unknown[], owned: FieldSet, path: string, raw: string[], lost: Lost): void {
  // A list whose items are not keyed (atomic, owned whole): svc owns it, so it holds what svc applied.
  if (!Object.keys(owned).some((s) => s.startsWith('k:') || s.startsWith('v:'))) return;
  desired.forEach((item, i) => {
    if (item === null || item === undefined) return;
    if (isPlainObject(item)) {
      const hit = keyedChild(owned, item);
      if (!hit) lost.fields.set(`${path}[${i}]`, raw);
      else walk(item, hit[1], `${path}${itemLabel(hit[0], i)}`, [...raw, hit[0]], lost);
      return;
    }
    const segment = `v:${JSON.stringify(item)}`;
    if (!(segment in owned)) lost.fields.set(`${path}[${JSON.stringify(item)}]`, [...raw, segment]);
  });
}

/** True for a desired field the walk does not judge (identity, status, and values that state nothing). */
function skipped(path: string, key: string, value: unknown): boolean {
  if (path === '' && SKIP_ROOT.has(key)) return true;
  if (path === 'metadata' && SKIP_METADATA.has(key)) return true;
  return isEmpty(value);
}

/** Walks a desired map against its owned node, recording every desired field svc does not own. */
function walk(desired: Record<string, unknown>, owned: FieldSet, path: string, raw: string[], lost: Lost): void {
  for (const [key, value] of Object.entries(desired)) {
    if (skipped(path, key, value)) continue;
    const childPath = path === '' ? key : `${path}.${key}`;
    const childRaw = [...raw, `f:${key}`];
    const child = owned[`f:${key}`];
    if (child) walkOwned(value, child, childPath, childRaw, lost);
    // A lost map is named by its leaves (data.v rather than data: the node goes with its last owned field).
    else if (isPlainObject(value)) walk(value, {}, childPath, childRaw, lost);
    else lost.fields.set(childPath, childRaw);
  }
}

/** Walks a desired value into the node svc owns for it; a node without children is owned whole (atomic). */
function walkOwned(value: unknown, owned: FieldSet, path: string, raw: string[], lost: Lost): void {
  if (Object.keys(owned).length === 0) return;
  if (Array.isArray(value)) walkList(value, owned, path, raw, lost);
  else if (isPlainObject(value)) walk(value, owned, path, raw, lost);
}

/** True when `set` holds the node at `segments` (or an ancestor owned whole, e.g. an atomic list). */
function holds(set: FieldSet | undefined, segments: string[]): boolean {
  let node = set;
  for (const [i, s] of segments.entries()) {
    if (!node) return false;
    if (i > 0 && Object.keys(node).length === 0) return true;
    node = node[s];
  }
  return node !== undefined;
}

/** The managers other than svc-operator that own any of the lost fields now. */
function takers(live: AnyObject, lost: Lost): string[] {
  const names = new Set<string>();
  for (const e of managedFieldsOf(live)) {
    if (e.manager === FIELD_MANAGER && e.operation === 'Apply') continue;
    for (const raw of lost.fields.values()) {
      if (holds(e.fieldsV1, raw)) names.add(e.manager ?? '(unnamed)');
    }
  }
  return [...names].sort();
}

/**
 * How `live` drifted from `desired` (the prepared object svc applies), or undefined when it holds what svc applied.
 * A live object without managedFields cannot be judged and reads as not drifted; one svc never applied (no Apply
 * entry of svc-operator) has lost every field.
 */
export function driftOf(desired: AnyObject, live: AnyObject | undefined): ObjectDrift | undefined {
  const ref: ObjectRef = {
    apiVersion: desired.apiVersion,
    kind: desired.kind,
    name: desired.metadata.name,
    ...(desired.metadata.namespace ? { namespace: desired.metadata.namespace } : {}),
  };
  if (!live) return { ref, kind: 'missing', fields: [], takenBy: [] };
  if (managedFieldsOf(live).length === 0) return undefined;
  const lost: Lost = { fields: new Map() };
  walk(desired as Record<string, unknown>, ownedBy(live) ?? {}, '', [], lost);
  if (lost.fields.size === 0) return undefined;
  return { ref, kind: 'changed', fields: [...lost.fields.keys()], takenBy: takers(live, lost) };
}

/** One line naming a drift, for events and messages: `Deployment web: spec.replicas (taken by kubectl)`. */
export function describeDrift(d: ObjectDrift): string {
  const name = `${d.ref.kind} ${d.ref.name}`;
  if (d.kind === 'missing') return `${name}: deleted`;
  const fields =
    d.fields.length > 3 ? `${d.fields.slice(0, 3).join(', ')} and ${d.fields.length - 3} more` : d.fields.join(', ');
  return `${name}: ${fields}${d.takenBy.length > 0 ? ` (taken by ${d.takenBy.join(', ')})` : ''}`;
}

/** What drift needs of the live state (the operator's watch cache, or the API's reads). */
export interface LiveObjects {
  get(ref: ObjectRef): Promise<AnyObject | undefined>;
}

/** The drift of every desired object against `live`, in order (objects that hold what svc applied are left out). */
export async function driftOfAll(live: LiveObjects, desired: readonly AnyObject[]): Promise<ObjectDrift[]> {
  const out: ObjectDrift[] = [];
  for (const o of desired) {
    const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace };
    const d = driftOf(o, await live.get(ref));
    if (d) out.push(d);
  }
  return out;
}
