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
 * lists (a node without children) and scalars by their presence. Fields the App's ignoreDifferences name
 * (./ignore.ts) never count, and a sync keeps their live value (`respectIgnored`). The same rule serves the
 * operator's sync status and selfHeal and the API's diff route (one place). Pure; no I/O.
 */
import type { IgnoreDifference } from '../core/app-schema.ts';
import { type AnyObject, FIELD_MANAGER, type ObjectRef } from '../kube/index.ts';
import { type Ignored, ignoredOf, NOTHING_IGNORED, setAt, underIgnoredPointer, valueAt } from './ignore.ts';

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

/** One field svc lost: the raw fieldsV1 segments leading to it (to find its owner now) and its JSON pointer. */
interface LostField {
  raw: string[];
  pointer: string[];
}

/** What the walk of one object collects. */
interface Lost {
  /** Readable path → the lost field. */
  fields: Map<string, LostField>;
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

/** Where the walk is: the readable path, the raw fieldsV1 segments and the JSON pointer of the desired value. */
interface At {
  path: string;
  raw: string[];
  pointer: string[];
}

/** Walks a desired list against its owned node. */
function walkList(desired: unknown[], owned: FieldSet, at: At, lost: Lost): void {
  // A list whose items are not keyed (atomic, owned whole): svc owns it, so it holds what svc applied.
  if (!Object.keys(owned).some((s) => s.startsWith('k:') || s.startsWith('v:'))) return;
  desired.forEach((item, i) => {
    if (item === null || item === undefined) return;
    const pointer = [...at.pointer, String(i)];
    if (isPlainObject(item)) {
      const hit = keyedChild(owned, item);
      if (!hit) lost.fields.set(`${at.path}[${i}]`, { raw: at.raw, pointer });
      else walk(item, hit[1], { path: `${at.path}${itemLabel(hit[0], i)}`, raw: [...at.raw, hit[0]], pointer }, lost);
      return;
    }
    const segment = `v:${JSON.stringify(item)}`;
    if (!(segment in owned)) {
      lost.fields.set(`${at.path}[${JSON.stringify(item)}]`, { raw: [...at.raw, segment], pointer });
    }
  });
}

/** True for a desired field the walk does not judge (identity, status, and values that state nothing). */
function skipped(path: string, key: string, value: unknown): boolean {
  if (path === '' && SKIP_ROOT.has(key)) return true;
  if (path === 'metadata' && SKIP_METADATA.has(key)) return true;
  return isEmpty(value);
}

/** Walks a desired map against its owned node, recording every desired field svc does not own. */
function walk(desired: Record<string, unknown>, owned: FieldSet, at: At, lost: Lost): void {
  for (const [key, value] of Object.entries(desired)) {
    if (skipped(at.path, key, value)) continue;
    const child: At = {
      path: at.path === '' ? key : `${at.path}.${key}`,
      raw: [...at.raw, `f:${key}`],
      pointer: [...at.pointer, key],
    };
    const node = owned[`f:${key}`];
    if (node) walkOwned(value, node, child, lost);
    // A lost map is named by its leaves (data.v rather than data: the node goes with its last owned field).
    else if (isPlainObject(value)) walk(value, {}, child, lost);
    else lost.fields.set(child.path, { raw: child.raw, pointer: child.pointer });
  }
}

/** Walks a desired value into the node svc owns for it; a node without children is owned whole (atomic). */
function walkOwned(value: unknown, owned: FieldSet, at: At, lost: Lost): void {
  if (Object.keys(owned).length === 0) return;
  if (Array.isArray(value)) walkList(value, owned, at, lost);
  else if (isPlainObject(value)) walk(value, owned, at, lost);
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

/** The managers other than svc-operator's Apply entry that own the lost field now. */
function ownersOf(live: AnyObject, field: LostField): string[] {
  const names: string[] = [];
  for (const e of managedFieldsOf(live)) {
    if (e.manager === FIELD_MANAGER && e.operation === 'Apply') continue;
    if (holds(e.fieldsV1, field.raw)) names.push(e.manager ?? '(unnamed)');
  }
  return names;
}

/** True when rules ignore the lost field: under an ignored pointer, or owned now only by ignored managers. */
function isIgnored(ignored: Ignored, owners: string[], field: LostField): boolean {
  if (underIgnoredPointer(ignored, field.pointer)) return true;
  return owners.length > 0 && owners.every((o) => ignored.managers.has(o));
}

/** The fields svc lost of `live` (what it would apply being `desired`), each with its current owners. */
function lostFields(desired: AnyObject, live: AnyObject): [string, LostField, string[]][] {
  const lost: Lost = { fields: new Map() };
  walk(desired as Record<string, unknown>, ownedBy(live) ?? {}, { path: '', raw: [], pointer: [] }, lost);
  return [...lost.fields].map(([path, field]) => [path, field, ownersOf(live, field)]);
}

/**
 * How `live` drifted from `desired` (the prepared object svc applies), or undefined when it holds what svc applied.
 * A live object without managedFields cannot be judged and reads as not drifted; one svc never applied (no Apply
 * entry of svc-operator) has lost every field.
 */
export function driftOf(
  desired: AnyObject,
  live: AnyObject | undefined,
  ignored: Ignored = NOTHING_IGNORED,
): ObjectDrift | undefined {
  const ref: ObjectRef = {
    apiVersion: desired.apiVersion,
    kind: desired.kind,
    name: desired.metadata.name,
    ...(desired.metadata.namespace ? { namespace: desired.metadata.namespace } : {}),
  };
  if (!live) return { ref, kind: 'missing', fields: [], takenBy: [] };
  if (managedFieldsOf(live).length === 0) return undefined;
  const counted = lostFields(desired, live).filter(([, field, owners]) => !isIgnored(ignored, owners, field));
  if (counted.length === 0) return undefined;
  const takenBy = [...new Set(counted.flatMap(([, , owners]) => owners))].sort();
  return { ref, kind: 'changed', fields: counted.map(([path]) => path), takenBy };
}

/** The value of `live` at a field's raw fieldsV1 segments (keyed list items found by their key). */
function liveValueAt(live: unknown, raw: readonly string[]): unknown {
  let node: unknown = live;
  for (const segment of raw) {
    if (segment.startsWith('f:') && isPlainObject(node)) node = node[segment.slice(2)];
    else if (segment.startsWith('k:') && Array.isArray(node)) {
      const key = JSON.parse(segment.slice(2)) as Record<string, unknown>;
      node = node.find(
        (item) =>
          isPlainObject(item) && Object.entries(key).every(([f, v]) => JSON.stringify(item[f]) === JSON.stringify(v)),
      );
    } else if (segment.startsWith('v:')) node = JSON.parse(segment.slice(2));
    else return undefined;
  }
  return node;
}

/**
 * What a sync applies of `desired` when `ignored` names fields of it: the live value in place of each ignored field
 * (removed where the live object lacks it), so a sync never reverts what another owner keeps. An object not live
 * yet is applied as rendered (it is created whole). `desired` is not modified.
 */
export function respectIgnored(desired: AnyObject, live: AnyObject | undefined, ignored: Ignored): AnyObject {
  if (!live || (ignored.pointers.length === 0 && ignored.managers.size === 0)) return desired;
  const out = structuredClone(desired) as AnyObject;
  for (const p of ignored.pointers) {
    if (keepsRendered(desired, p)) continue;
    setAt(out, p, structuredClone(valueAt(live, p)));
  }
  if (ignored.managers.size === 0 || managedFieldsOf(live).length === 0) return out;
  for (const [, field, owners] of lostFields(desired, live)) {
    if (owners.length === 0 || !owners.every((o) => ignored.managers.has(o))) continue;
    setAt(out, field.pointer, structuredClone(liveValueAt(live, field.raw)));
  }
  return out;
}

/**
 * True for a pointer whose rendered value a sync keeps: the whole object, identity and status, and a Secret's
 * values (the live cache keeps none, so taking "the live value" would erase them).
 */
function keepsRendered(desired: AnyObject, p: readonly string[]): boolean {
  const root = p[0];
  if (root === undefined || SKIP_ROOT.has(root)) return true;
  return desired.kind === 'Secret' && desired.apiVersion === 'v1' && (root === 'data' || root === 'stringData');
}

/** One line naming a drift, for events and messages: `Deployment web: spec.replicas (taken by kubectl)`. */
export function describeDrift(d: ObjectDrift): string {
  const name = `${d.ref.kind} ${d.ref.name}`;
  if (d.kind === 'missing') return `${name}: deleted`;
  const more = d.fields.length > 3 ? ` and ${d.fields.length - 3} more` : '';
  const taken = d.takenBy.length > 0 ? ` (taken by ${d.takenBy.join(', ')})` : '';
  return `${name}: ${d.fields.slice(0, 3).join(', ')}${more}${taken}`;
}

/** What drift needs of the live state (the operator's watch cache, or the API's reads). */
export interface LiveObjects {
  get(ref: ObjectRef): Promise<AnyObject | undefined>;
}

/**
 * The drift of every desired object against `live`, in order (objects that hold what svc applied are left out);
 * `rules` are the App's spec.ignoreDifferences.
 */
export async function driftOfAll(
  live: LiveObjects,
  desired: readonly AnyObject[],
  rules?: readonly IgnoreDifference[],
): Promise<ObjectDrift[]> {
  const out: ObjectDrift[] = [];
  for (const o of desired) {
    const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace };
    const d = driftOf(o, await live.get(ref), ignoredOf(rules, o));
    if (d) out.push(d);
  }
  return out;
}

/**
 * `respectIgnored` over a desired set: what a sync applies, each object with the live value of the fields `rules`
 * ignore. Reads the live state only for objects a rule names.
 */
export async function respectAll(
  live: LiveObjects,
  desired: AnyObject[],
  rules: readonly IgnoreDifference[] | undefined,
): Promise<AnyObject[]> {
  if (!rules || rules.length === 0) return desired;
  const out: AnyObject[] = [];
  for (const o of desired) {
    const ignored = ignoredOf(rules, o);
    if (ignored === NOTHING_IGNORED) {
      out.push(o);
      continue;
    }
    const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace };
    out.push(respectIgnored(o, await live.get(ref), ignored));
  }
  return out;
}
