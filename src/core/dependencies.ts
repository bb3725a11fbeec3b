/**
 * Dependencies between Apps (`spec.dependsOn`, docs/operator.md "Dependencies"): when an App may sync, why it may
 * not (`status.blockedBy`), and cycles. The one rule, shared by the API (a cycle is refused at create) and the
 * operator (a blocked App does not sync; a cycle made behind svc's back stalls the Apps in it). Pure: the caller
 * supplies the Apps.
 *
 * A dependency is ready when it is Synced and Healthy at its current revision, which the status says exactly when
 * the operator reconciled the dependency's current spec (observedGeneration), no operation of it is requested or
 * running, and it reads Synced (its upstream head is what it applied, all of it live) and Healthy.
 */
import type { AppResource, BlockedBy } from './app-schema.ts';
import { isStalled, operationLifecycle } from './app-state.ts';

/** An App named by its resource namespace and name. */
export interface AppName {
  namespace: string;
  name: string;
}

/** Longest `status.blockedBy[].reason` kept (a health reason names up to three resources). */
const MAX_REASON = 300;

/** The Apps `app` depends on, namespaces filled in (a dependency without one is in the App's own namespace). */
export function dependenciesOf(app: AppResource): AppName[] {
  const own = app.metadata.namespace ?? '';
  return (app.spec.dependsOn ?? []).map((d) => ({ namespace: d.namespace ?? own, name: d.name }));
}

/**
 * Why `dep` (found under `ref`, undefined when there is no such App) keeps `app` from syncing, or undefined when it
 * is ready. A dependency in another namespace (another org) never is.
 */
export function blockReason(app: AppResource, ref: AppName, dep: AppResource | undefined): string | undefined {
  if (ref.namespace !== (app.metadata.namespace ?? '')) {
    return `in namespace ${ref.namespace}: dependencies must be Apps of the same org`;
  }
  if (!dep) return 'not found';
  if (dep.metadata.deletionTimestamp) return 'being deleted';
  if (dep.status?.observedGeneration !== dep.metadata.generation) return 'its current spec is not reconciled yet';
  const life = operationLifecycle(dep);
  if (life.phase === 'requested' || life.phase === 'running') {
    return `a ${life.operation.kind} operation is ${life.phase === 'requested' ? 'requested' : 'running'}`;
  }
  return stateReason(dep);
}

/** Why a reconciled dependency without an operation in flight is not Synced and Healthy, or undefined. */
function stateReason(dep: AppResource): string | undefined {
  const s = dep.status ?? {};
  const stalled = isStalled(dep);
  if (stalled || s.syncStatus !== 'Synced') {
    const failing = s.conditions?.find((c) => (c.type === 'Stalled' || c.type === 'SyncError') && c.status === 'True');
    const status = stalled ? 'Stalled' : (s.syncStatus ?? 'Unknown');
    return clip(failing?.message ? `${status}: ${failing.message}` : status);
  }
  if (s.healthStatus === 'Healthy') return undefined;
  const health = s.healthStatus ?? 'Unknown';
  return clip(s.healthReason ? `${health}: ${s.healthReason}` : health);
}

/**
 * The dependencies of `app` that keep it from syncing, in `spec.dependsOn` order, each with its reason (see
 * `blockReason`); empty when it may sync. `lookup` answers an App by namespace and name.
 */
export function blockedBy(app: AppResource, lookup: (ref: AppName) => AppResource | undefined): BlockedBy[] {
  const out: BlockedBy[] = [];
  const seen = new Set<string>();
  for (const ref of dependenciesOf(app)) {
    const key = `${ref.namespace}/${ref.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const reason = blockReason(app, ref, lookup(ref));
    if (reason !== undefined) out.push({ app: ref.name, reason });
  }
  return out;
}

/**
 * A dependency cycle through `start`, as the names along it from `start` back to `start` (`[a, b, a]`; a
 * self-dependency is `[a, a]`), or undefined. `edges(name)` answers the names an App depends on in the same
 * namespace (an App that does not exist has none). Each App is visited once, so a large graph costs its size.
 */
export function findCycle(start: string, edges: (name: string) => readonly string[]): string[] | undefined {
  const visited = new Set<string>();
  const path: string[] = [start];
  const walk = (name: string): boolean => {
    for (const next of edges(name)) {
      if (next === start) {
        path.push(start);
        return true;
      }
      if (visited.has(next)) continue;
      visited.add(next);
      path.push(next);
      if (walk(next)) return true;
      path.pop();
    }
    return false;
  };
  return walk(start) ? path : undefined;
}

/** The message naming a cycle: `dependency cycle: a → b → a`. */
export function cycleMessage(cycle: readonly string[]): string {
  return `dependency cycle: ${cycle.join(' → ')}`;
}

/** The names `app` depends on in its own namespace (the edges a cycle can run along). */
export function sameNamespaceDependencies(app: AppResource): string[] {
  const own = app.metadata.namespace ?? '';
  return dependenciesOf(app)
    .filter((d) => d.namespace === own)
    .map((d) => d.name);
}

function clip(reason: string): string {
  return reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason;
}
