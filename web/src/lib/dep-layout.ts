/**
 * The layout of an org's dependency graph (spec.dependsOn, issue 27 item 3): layers by depth, no library. An App
 * that depends on nothing is in column 0; any other App is one column right of its deepest dependency, so every edge
 * points right. Within a column, Apps are ordered by the mean row of their dependencies (then by name), which keeps
 * most edges short and uncrossed for the chains and fans dependencies make. A cycle (refused at write time, possible
 * behind svc's back) is cut where the walk finds it back, so it still draws.
 */

/** What the layout reads of an App: its name and the names it depends on. */
export interface DepApp {
  name: string;
  depends_on: readonly string[];
}

/** A placed node: an App, or a dependency no App of the list is (`missing`). */
export interface PlacedNode {
  name: string;
  column: number;
  row: number;
  missing: boolean;
}

export interface DepLayout {
  nodes: PlacedNode[];
  /** From the dependency to the App that depends on it. */
  edges: { from: string; to: string }[];
  columns: number;
  rows: number;
  /** Apps with no dependency and none depending on them: not drawn, counted. */
  unconnected: number;
}

/** The column of each name: 0 without dependencies, else one more than its deepest dependency's. */
function depths(deps: Map<string, readonly string[]>): Map<string, number> {
  const depth = new Map<string, number>();
  const walking = new Set<string>();
  const visit = (name: string): number => {
    const known = depth.get(name);
    if (known !== undefined) return known;
    if (walking.has(name)) return -1; // a cycle: cut here
    walking.add(name);
    let d = 0;
    for (const dep of deps.get(name) ?? []) d = Math.max(d, visit(dep) + 1);
    walking.delete(name);
    depth.set(name, d);
    return d;
  };
  for (const name of [...deps.keys()].sort()) visit(name);
  return depth;
}

/**
 * Places the Apps that take part in a dependency (as a dependency or a dependent) in columns by depth; the others
 * are counted in `unconnected`.
 */
export function layoutDependencies(apps: readonly DepApp[]): DepLayout {
  const byName = new Map(apps.map((a) => [a.name, a]));
  const edges = apps.flatMap((a) => [...new Set(a.depends_on)].map((dep) => ({ from: dep, to: a.name })));
  const linked = new Set(edges.flatMap((e) => [e.from, e.to]));
  const deps = new Map<string, readonly string[]>();
  for (const name of linked) deps.set(name, byName.get(name)?.depends_on ?? []);
  const depth = depths(deps);
  const columns: string[][] =
    depth.size === 0 ? [] : Array.from({ length: Math.max(0, ...depth.values()) + 1 }, () => []);
  for (const [name, d] of depth) columns[d]?.push(name);
  const rowOf = new Map<string, number>();
  const nodes: PlacedNode[] = [];
  for (const [column, names] of columns.entries()) {
    const mean = (name: string) => {
      const rows = (deps.get(name) ?? []).map((d) => rowOf.get(d)).filter((r) => r !== undefined);
      return rows.length === 0 ? 0 : rows.reduce((a, b) => a + b, 0) / rows.length;
    };
    const ordered = [...names].sort((a, b) => mean(a) - mean(b) || a.localeCompare(b));
    for (const [row, name] of ordered.entries()) {
      rowOf.set(name, row);
      nodes.push({ name, column, row, missing: !byName.has(name) });
    }
  }
  return {
    nodes,
    edges,
    columns: columns.length,
    rows: Math.max(0, ...columns.map((c) => c.length)),
    unconnected: apps.filter((a) => !linked.has(a.name)).length,
  };
}
