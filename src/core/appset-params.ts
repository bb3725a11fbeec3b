/**
 * AppSet generator parameters (issue 27 item 1; Argo CD ApplicationSet's parameter names where one exists): what
 * each generator gives one generated App, how `matrix` and `merge` combine two generators' sets, and which keys a
 * generator can provide (for the write-time placeholder check, ./appset-template.ts). Pure: the operator supplies
 * the clusters, directories and files it read.
 */
import type { Params } from './appset-template.ts';

/** Which keys a generator can provide. */
export type KnownKeys = (key: string) => boolean;

/** A registered cluster as the `clusters` generator sees it. */
export interface ClusterFacts {
  name: string;
  labels: Readonly<Record<string, string>>;
}

/** A label selector (`matchLabels` only: every label must be present with that value; empty selects all). */
export interface LabelSelector {
  matchLabels?: Readonly<Record<string, string>>;
}

/** True when `labels` satisfy `selector`. */
export function selects(selector: LabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  return Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}

/** `s` as a DNS-1123 label piece: lower case, every other character `-`, no `-` at the ends, at most 63. */
export function normalized(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
}

/** `clusters`: `name`, `nameNormalized` and `metadata.labels.<key>` of each selected cluster. */
export function clusterParams(cluster: ClusterFacts): Params {
  const labels = Object.entries(cluster.labels).map(([k, v]) => [`metadata.labels.${k}`, v]);
  return { name: cluster.name, nameNormalized: normalized(cluster.name), ...Object.fromEntries(labels) };
}

/** The `path…` parameters of a repository path: `path`, `path.basename`, `path.basenameNormalized`, `path[n]`. */
export function pathParams(path: string): Record<string, string> {
  const parts = path.split('/').filter((p) => p !== '');
  const basename = parts.at(-1) ?? '';
  const indexed = parts.map((p, i) => [`path[${i}]`, p]);
  return {
    path,
    'path.basename': basename,
    'path.basenameNormalized': normalized(basename),
    ...Object.fromEntries(indexed),
  };
}

/**
 * `gitFiles`: the file's values flattened to dotted keys (`a.b`, `list[0]`), then the `path…` parameters of its
 * directory and `path.filename`, `path.filenameNormalized` (a file value of those names is overridden).
 */
export function fileParams(path: string, content: unknown): Params {
  const out: Record<string, string> = {};
  flatten(content, '', out);
  const parts = path.split('/');
  const filename = parts.at(-1) ?? '';
  const dir = parts.slice(0, -1).join('/') || '.';
  return { ...out, ...pathParams(dir), 'path.filename': filename, 'path.filenameNormalized': normalized(filename) };
}

/** Writes the scalars of `value` into `out` under dotted keys below `key` (`a.b`, `list[0]`). */
function flatten(value: unknown, key: string, out: Record<string, string>): void {
  if (value === null || value === undefined) return;
  if (typeof value !== 'object') {
    if (key) out[key] = String(value);
    return;
  }
  const entries = Array.isArray(value)
    ? value.map((v, i) => [`${key}[${i}]`, v] as const)
    : Object.entries(value).map(([k, v]) => [key ? `${key}.${k}` : k, v] as const);
  for (const [k, v] of entries) flatten(v, k, out);
}

/** `matrix`: every pair of a set of `a` and a set of `b`, combined (a key of both takes `b`'s value). */
export function matrixParams(a: readonly Params[], b: readonly Params[]): Params[] {
  return a.flatMap((x) => b.map((y) => ({ ...x, ...y })));
}

/**
 * `merge`: each set of `base`, with the values of the first set of `other` that has the same values for every key
 * of `mergeKeys` laid over it; a base set without such a match stays as it is, a set of `other` without a base
 * match is dropped (Argo CD's merge generator).
 */
export function mergeParams(base: readonly Params[], other: readonly Params[], mergeKeys: readonly string[]): Params[] {
  const keyOf = (p: Params) => JSON.stringify(mergeKeys.map((k) => p[k] ?? null));
  const byKey = new Map<string, Params>();
  for (const p of other) if (!byKey.has(keyOf(p))) byKey.set(keyOf(p), p);
  return base.map((p) => ({ ...p, ...(byKey.get(keyOf(p)) ?? {}) }));
}

/** The keys a `list` generator provides: those of its elements. */
export function listKeys(elements: readonly Params[]): KnownKeys {
  const keys = new Set(elements.flatMap((e) => Object.keys(e)));
  return (key) => keys.has(key);
}

/** The keys a `clusters` generator provides. */
export const clusterKeys: KnownKeys = (key) =>
  key === 'name' || key === 'nameNormalized' || /^metadata\.labels\.[^.].*$/.test(key);

/** The keys a `gitDirectories` generator provides. */
export const directoryKeys: KnownKeys = (key) =>
  key === 'path' || key === 'path.basename' || key === 'path.basenameNormalized' || /^path\[\d+\]$/.test(key);

/** The keys a `gitFiles` generator provides: its files' own, unknown until they are read, so any. */
export const fileKeys: KnownKeys = () => true;

/** The keys `matrix` and `merge` provide: either generator's. */
export function eitherKeys(a: KnownKeys, b: KnownKeys): KnownKeys {
  return (key) => a(key) || b(key);
}
