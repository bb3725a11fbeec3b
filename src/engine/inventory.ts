/**
 * The inventory (`status.inventory`): every object the App applied and still owns, one compact entry each. Prune
 * and cascade deletion act on it, so they never list the cluster. Apps written by releases before the inventory
 * carry only `status.appliedKinds`: their inventory is built once by listing those kinds by the App's labels
 * (`loadInventory`), and written back, after which the list never happens again.
 */
import type { AppResource, AppStatus, InventoryEntry } from '../core/app-schema.ts';
import type { AnyObject, ObjectClient, ObjectRef } from '../kube/index.ts';
import { groupOf } from '../render/index.ts';
import { type AppKey, managedSelector } from './labels.ts';

export type { InventoryEntry };

/** What an inventory entry is made from: any object, rendered or live. */
type Identified = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

/**
 * `<namespace>_<name>_<group>_<Kind>`: an object's identity regardless of its API version. Unambiguous although a
 * name may contain `_`: namespaces and groups are DNS names and kinds are alphanumeric, so neither holds one.
 */
export function inventoryId(o: Identified): string {
  return `${o.metadata.namespace ?? ''}_${o.metadata.name}_${groupOf(o.apiVersion)}_${o.kind}`;
}

/** The inventory entry of an object. */
export function entryOf(o: Identified): InventoryEntry {
  const slash = o.apiVersion.indexOf('/');
  return { id: inventoryId(o), v: slash < 0 ? o.apiVersion : o.apiVersion.slice(slash + 1) };
}

/** The object an entry names (inverse of entryOf). */
export function refOf(e: InventoryEntry): ObjectRef {
  const first = e.id.indexOf('_');
  const last = e.id.lastIndexOf('_');
  const beforeLast = e.id.lastIndexOf('_', last - 1);
  const namespace = e.id.slice(0, first);
  const group = e.id.slice(beforeLast + 1, last);
  return {
    apiVersion: group ? `${group}/${e.v}` : e.v,
    kind: e.id.slice(last + 1),
    name: e.id.slice(first + 1, beforeLast),
    ...(namespace ? { namespace } : {}),
  };
}

/**
 * The union of inventories, sorted by id (a stable order, so an unchanged inventory never rewrites the status).
 * For an id in several lists the last list's entry wins (its version is the newer one).
 */
export function mergeInventory(...lists: readonly (readonly InventoryEntry[])[]): InventoryEntry[] {
  const byId = new Map<string, InventoryEntry>();
  for (const list of lists) for (const e of list) byId.set(e.id, e);
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** True when the status predates the inventory and names applied kinds to migrate from. */
function needsMigration(status: AppStatus | undefined): boolean {
  return status?.inventory === undefined && (status?.appliedKinds?.length ?? 0) + (status?.resources?.length ?? 0) > 0;
}

/** The App's inventory, and whether it was just built from the pre-inventory status (and must be written). */
export interface LoadedInventory {
  entries: InventoryEntry[];
  migrated: boolean;
}

/**
 * The App's inventory: `status.inventory` as written, or, for an App from a release before the inventory, the
 * live objects carrying its two labels across `status.appliedKinds` and the kinds of `status.resources` (one label
 * LIST per kind, the last time this App is listed).
 */
export async function loadInventory(target: ObjectClient, app: AppResource): Promise<LoadedInventory> {
  const status = app.status;
  if (!needsMigration(status)) return { entries: status?.inventory ?? [], migrated: false };
  const kinds = new Set([
    ...(status?.appliedKinds ?? []),
    ...(status?.resources ?? []).map((r) => `${r.apiVersion}/${r.kind}`),
  ]);
  const key = { namespace: app.metadata.namespace ?? '', name: app.metadata.name };
  return { entries: mergeInventory((await listManaged(target, key, kinds)).map(entryOf)), migrated: true };
}

/** Every live object of `kinds` (`apiVersion/Kind`) carrying the App's two labels, in any namespace. */
async function listManaged(target: ObjectClient, app: AppKey, kinds: Iterable<string>): Promise<AnyObject[]> {
  const out: AnyObject[] = [];
  for (const k of kinds) {
    const slash = k.lastIndexOf('/');
    out.push(...(await target.list(k.slice(0, slash), k.slice(slash + 1), managedSelector(app))));
  }
  return out;
}
