/**
 * `${VAR}` substitution, applied to every string value of the rendered objects (after rendering, so templates and
 * kustomizations see the raw text). Variables not in the map are left as written.
 */
import type { KubeObject } from './types.ts';

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Returns copies of `objects` with `${NAME}` replaced by `vars[NAME]` in every string value. */
export function substitute(objects: KubeObject[], vars: Record<string, string> | undefined): KubeObject[] {
  if (!vars || Object.keys(vars).length === 0) return objects;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string')
      return v.replace(VAR, (whole, name: string) => (Object.hasOwn(vars, name) ? (vars[name] as string) : whole));
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return objects.map((o) => walk(o) as KubeObject);
}
