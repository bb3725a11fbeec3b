/**
 * Dependencies stage: reads the Apps an App depends on (spec.dependsOn, transitively, within its namespace) and
 * answers which keep it from syncing (status.blockedBy), by the one rule of src/core/dependencies.ts. A cycle
 * through the App (made behind svc's back: the API refuses one at create) is a spec that cannot work: an InputError
 * naming it, which stalls the App.
 */
import type { AppResource, BlockedBy } from '../../core/app-schema.ts';
import {
  type AppName,
  blockedBy,
  cycleMessage,
  findCycle,
  sameNamespaceDependencies,
} from '../../core/dependencies.ts';
import { InputError } from '../../core/errors.ts';

/** Most Apps read to look for a cycle through one App (a bound on the walk, far above any real chain). */
export const MAX_GRAPH = 2_000;

/**
 * The Apps reachable from `app` along same-namespace dependencies (`app` itself included), by name; undefined for
 * a name with no App. `load` reads one App (the informer's copy in the operator). Stops after `limit` Apps.
 */
export async function dependencyGraph(
  app: AppResource,
  load: (ref: AppName) => Promise<AppResource | undefined>,
  limit = MAX_GRAPH,
): Promise<Map<string, AppResource | undefined>> {
  const namespace = app.metadata.namespace ?? '';
  const graph = new Map<string, AppResource | undefined>([[app.metadata.name, app]]);
  const queue = [...sameNamespaceDependencies(app)];
  while (queue.length > 0 && graph.size < limit) {
    const name = queue.shift() as string;
    if (graph.has(name)) continue;
    const dep = await load({ namespace, name });
    graph.set(name, dep);
    if (dep) queue.push(...sameNamespaceDependencies(dep));
  }
  return graph;
}

/**
 * The dependencies keeping `app` from syncing (empty when none, or when it has no `spec.dependsOn`). Throws
 * InputError (a stall) naming a cycle through `app`. Dependencies in another namespace are never read: they block
 * the App as "not of the same org".
 */
export async function checkDependencies(
  app: AppResource,
  load: (ref: AppName) => Promise<AppResource | undefined>,
): Promise<BlockedBy[]> {
  if ((app.spec.dependsOn ?? []).length === 0) return [];
  const graph = await dependencyGraph(app, load);
  const cycle = findCycle(app.metadata.name, (name) => {
    const found = graph.get(name);
    return found ? sameNamespaceDependencies(found) : [];
  });
  if (cycle) throw new InputError(`${cycleMessage(cycle)}; remove one of these dependencies`);
  return blockedBy(app, (ref) => graph.get(ref.name));
}
