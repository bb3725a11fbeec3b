/**
 * Helm values as the importer carries them: Argo CD's `helm.values` (YAML text), `valuesObject` and `parameters`
 * merged into one object for a HelmChart source, or flattened into `--set-string` pairs for a chart in Git (whose
 * svc field takes strings only).
 */
import { parse } from 'yaml';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Keys that would reach an object's prototype when assigned: never written (prototype pollution). */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** YAML text as a values object; undefined when it is not a mapping. */
export function parseValues(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** `over` merged into `base`, objects deeply, anything else replaced (Helm's coalescing). */
export function mergeValues(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (UNSAFE_KEYS.has(k)) continue;
    const b = out[k];
    out[k] = isObject(b) && isObject(v) ? mergeValues(b, v) : v;
  }
  return out;
}

/** Sets `path` (dotted, no list indices) to `value`; false when the path has a list index or escapes. */
export function setPath(values: Record<string, unknown>, path: string, value: unknown): boolean {
  if (!/^[\w-]+(\.[\w-]+)*$/.test(path)) return false;
  const keys = path.split('.');
  if (keys.some((k) => UNSAFE_KEYS.has(k))) return false;
  let node = values;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node[key] = isObject(next) ? next : {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
  return true;
}

/** A values object as `key.path → string` pairs; undefined when it holds a list (not expressible as pairs). */
export function flattenValues(values: Record<string, unknown>, prefix = ''): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isObject(v)) {
      const inner = flattenValues(v, key);
      if (!inner) return undefined;
      Object.assign(out, inner);
    } else if (Array.isArray(v)) {
      return undefined;
    } else {
      out[key] = v === null ? 'null' : String(v);
    }
  }
  return out;
}
