/**
 * ignoreDifferences: the fields of an App's objects that someone else owns (an HPA's replicas, a webhook's injected
 * sidecar). One rule set serves drift (./drift.ts: an ignored field never counts), the apply (`respectIgnored`: a
 * sync keeps the live value of an ignored field instead of reverting it) and so the diff route, whose dry run applies
 * what the operator would. Rules match by group/kind (`*` any), optionally name and namespace, and name fields by
 * RFC 6901 JSON pointers or by the field managers that own them (Argo CD's `jsonPointers` and
 * `managedFieldsManagers`). Pure; no I/O.
 */
import type { IgnoreDifference } from '../core/app-schema.ts';
import type { AnyObject } from '../kube/index.ts';

/** What is ignored of one object: JSON pointers (as tokens) and field managers. */
export interface Ignored {
  pointers: string[][];
  managers: Set<string>;
}

/** Nothing ignored. */
export const NOTHING_IGNORED: Ignored = { pointers: [], managers: new Set() };

/** The tokens of a JSON pointer (`/a/b~1c` → ['a', 'b/c']); [] for the whole document. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '');

function matches(rule: IgnoreDifference, obj: AnyObject): boolean {
  const group = rule.group ?? '';
  if (group !== '*' && group !== groupOf(obj.apiVersion)) return false;
  if (rule.kind !== '*' && rule.kind !== obj.kind) return false;
  if (rule.name !== undefined && rule.name !== obj.metadata.name) return false;
  return rule.namespace === undefined || rule.namespace === obj.metadata.namespace;
}

/** What `rules` (an App's spec.ignoreDifferences) ignore of `obj`. */
export function ignoredOf(rules: readonly IgnoreDifference[] | undefined, obj: AnyObject): Ignored {
  if (!rules || rules.length === 0) return NOTHING_IGNORED;
  const pointers: string[][] = [];
  const managers = new Set<string>();
  for (const rule of rules) {
    if (!matches(rule, obj)) continue;
    for (const p of rule.jsonPointers ?? []) pointers.push(pointerTokens(p));
    for (const m of rule.managedFieldsManagers ?? []) managers.add(m);
  }
  return pointers.length === 0 && managers.size === 0 ? NOTHING_IGNORED : { pointers, managers };
}

/** True when `pointer` lies at or under one of `ignored`'s pointers. */
export function underIgnoredPointer(ignored: Ignored, pointer: readonly string[]): boolean {
  return ignored.pointers.some((p) => p.length <= pointer.length && p.every((t, i) => t === pointer[i]));
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** The value at `tokens` in `obj` (undefined when absent). */
export function valueAt(obj: unknown, tokens: readonly string[]): unknown {
  let node: unknown = obj;
  for (const t of tokens) {
    if (!isContainer(node)) return undefined;
    node = Array.isArray(node) ? node[Number(t)] : node[t];
  }
  return node;
}

/** The child of a container at token `t` (a list by index), or undefined. */
function childOf(node: Container, t: string): unknown {
  return Array.isArray(node) ? node[Number(t)] : node[t];
}

/** The container holding the value at `tokens`, made on the way when `create` (maps only); undefined if absent. */
function parentOf(obj: Container, tokens: readonly string[], create: boolean): Container | undefined {
  let node: Container = obj;
  for (const t of tokens.slice(0, -1)) {
    let next = childOf(node, t);
    if (!isContainer(next) && create && !Array.isArray(node)) {
      next = {};
      node[t] = next;
    }
    if (!isContainer(next)) return undefined;
    node = next;
  }
  return node;
}

/**
 * Sets (or, for `undefined`, removes) the value at `tokens` in `obj`, which is modified; a missing parent map is
 * made when a value is set. A pointer into a list index that does not exist changes nothing.
 */
export function setAt(obj: Record<string, unknown>, tokens: readonly string[], value: unknown): void {
  const last = tokens.at(-1);
  const parent = last === undefined ? undefined : parentOf(obj, tokens, value !== undefined);
  if (!parent || last === undefined) return;
  if (!Array.isArray(parent)) {
    if (value === undefined) delete parent[last];
    else parent[last] = value;
    return;
  }
  const index = Number(last);
  if (!Number.isInteger(index) || index < 0 || index >= parent.length) return;
  if (value === undefined) parent.splice(index, 1);
  else parent[index] = value;
}
