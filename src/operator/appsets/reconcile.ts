/**
 * One AppSet's reconcile (issue 27 item 1): read the generators' inputs, generate the Apps, plan against the Apps of
 * the AppSet's namespace (src/core/appset-generate.ts: create / update / delete per `applicationsSync`, never an
 * App it did not make), carry the plan out, and write the status (generated Apps with their sync and health as
 * last seen, and every error). Deleting the AppSet is the garbage collector's: its Apps carry a controller owner
 * reference, and `preserveResourcesOnDeletion` is each App's own delete policy (stamped at generation).
 *
 * Loaded on the first AppSet only (./controller.ts): it pulls in the App schema (TypeBox), which an operator
 * without AppSets does not hold in memory.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import {
  APP_API_VERSION,
  APP_KIND,
  APPSET_KIND,
  APPSET_LABEL,
  DELETE_POLICY_ANNOTATION,
} from '../../core/app-names.ts';
import type { AppResource } from '../../core/app-schema.ts';
import type { AppSetPlan } from '../../core/appset-generate.ts';
import { withoutAutomated } from '../../core/appset-rollout.ts';
import { appSetProblems } from '../../core/appset-rules.ts';
import type { AppSetResource, AppSetStatus, RolloutStatus } from '../../core/appset-schema.ts';
import { mapLimit } from '../../core/concurrency.ts';
import { describeError } from '../../core/errors.ts';
import { gatherInputs, type InputSources, readsOutside } from '../../engine/appset-inputs.ts';
import { type AnyObject, isConflict, type ObjectClient } from '../../kube/index.ts';
import { runRollout } from './rollout.ts';

/** Field manager of the AppSet controller's writes to Apps (not the reconciler's: they own different fields). */
export const APPSET_FIELD_MANAGER = 'svc-appset';
/** Most errors the status lists (the schema's bound). */
const MAX_ERRORS = 100;

/** What a reconcile needs. */
export interface AppSetReconcileDeps extends InputSources {
  mgmt: ObjectClient;
  /** The Apps of a namespace as the App informer last saw them. */
  appsIn: (namespace: string) => AppResource[];
  /** False once this process may no longer write (lost the lead, killed). */
  mayWrite: () => boolean;
  logger: Logger;
  /** How often an AppSet reading Git or clusters is generated again. */
  resyncMs: number;
}

/** When to run again: ms, the key's backoff, or only on the next event. */
export type AppSetRequeue = number | 'backoff' | undefined;

/** Reconciles one AppSet (read from the informer's cache). */
export async function reconcileAppSet(deps: AppSetReconcileDeps, appSet: AppSetResource): Promise<AppSetRequeue> {
  if (appSet.metadata.deletionTimestamp) return undefined;
  const namespace = appSet.metadata.namespace ?? '';
  const mine = (a: AppResource) => a.metadata.labels?.[APPSET_LABEL] === appSet.metadata.name;
  const problems = appSetProblems(appSet.spec);
  if (problems.length > 0) {
    // Written behind the API's back: nothing is generated until the spec is fixed.
    await writeStatus(deps, appSet, deps.appsIn(namespace).filter(mine), problems, appSet.status?.rollout);
    return undefined;
  }
  let inputs: Awaited<ReturnType<typeof gatherInputs>>;
  try {
    inputs = await gatherInputs(appSet, deps);
  } catch (err) {
    const apps = deps.appsIn(namespace).filter(mine);
    await writeStatus(deps, appSet, apps, [describeError(err)], appSet.status?.rollout);
    return 'backoff';
  }
  // Under a rolling sync the AppSet syncs its Apps step by step: their own automated sync is off (set in the
  // template, so generation fills and orders the spec as it does any other).
  // Loaded with the first AppSet: generation checks each App against the App schema (TypeBox and Ajv, about
  // 30 MiB of resident memory) that an operator without AppSets need not carry (bench/README.md, issue 29).
  const { generateApps, planAppSet } = await import('../../core/appset-generate.ts');
  const generated = generateApps(appSet.spec.strategy ? withoutAutomated(appSet) : appSet, inputs);
  const existing = deps.appsIn(namespace);
  const plan = planAppSet(appSet, generated.apps, existing);
  if (!deps.mayWrite()) return undefined;
  const failed = await carryOut(deps, plan, existing);
  const owned = new Map(existing.filter(mine).map((a) => [a.metadata.name, a]));
  for (const name of plan.delete) owned.delete(name);
  for (const app of plan.create) if (!owned.has(app.metadata.name)) owned.set(app.metadata.name, app);
  // Apps just created or updated are planned from the cache at the next run (their write queues the AppSet).
  const touched = new Set([...plan.create, ...plan.update].map((a) => a.metadata.name));
  const settled = existing.filter((a) => mine(a) && owned.has(a.metadata.name) && !touched.has(a.metadata.name));
  const rollout = touched.size > 0 ? undefined : await runRollout(deps, appSet, settled);
  failed.push(...(rollout?.errors ?? []));
  const errors = [...generated.errors, ...plan.conflicts, ...failed];
  await writeStatus(deps, appSet, [...owned.values()], errors, rollout?.status ?? appSet.status?.rollout);
  if (failed.length > 0) return 'backoff';
  return readsOutside(appSet) ? deps.resyncMs : undefined;
}

/** Generated Apps written (created, replaced, deleted) at once: the operator's worker count. */
const WRITE_CONCURRENCY = 8;

/** Creates, updates and deletes per the plan; answers the errors (one per App that failed). */
async function carryOut(deps: AppSetReconcileDeps, plan: AppSetPlan, existing: AppResource[]): Promise<string[]> {
  const errors: string[] = [];
  const byName = new Map(existing.map((a) => [a.metadata.name, a]));
  const attempt = async (name: string, verb: string, write: () => Promise<unknown>) => {
    try {
      await write();
      deps.logger.info({ app: name, verb }, 'AppSet: App written');
    } catch (err) {
      // A conflict is a race with another writer: the next run sees the winner.
      if (!isConflict(err)) errors.push(`App "${name}": cannot ${verb}: ${describeError(err)}`);
    }
  };
  // Written WRITE_CONCURRENCY at a time: one AppSet of 1,000 Apps written one by one took 45 s before the last App
  // existed, against 9 s for the same Apps created 8 at a time (bench/README.md, issue 27).
  await mapLimit(plan.create, WRITE_CONCURRENCY, (app) =>
    attempt(app.metadata.name, 'create', () => deps.mgmt.create(app as unknown as AnyObject)),
  );
  await mapLimit(plan.update, WRITE_CONCURRENCY, async (app) => {
    const found = byName.get(app.metadata.name);
    // An App on its way out is made again once it is gone (its deletion queues the AppSet).
    if (found && !found.metadata.deletionTimestamp) {
      await attempt(app.metadata.name, 'update', () => replaceApp(deps.mgmt, found, app));
    }
  });
  await mapLimit(plan.delete, WRITE_CONCURRENCY, async (name) => {
    const found = byName.get(name);
    if (found?.metadata.deletionTimestamp) return;
    const ref = { apiVersion: APP_API_VERSION, kind: APP_KIND, namespace: found?.metadata.namespace ?? '', name };
    const uid = found?.metadata.uid;
    await attempt(name, 'delete', () => deps.mgmt.delete(ref, uid ? { uid } : undefined));
  });
  // Concurrent writes finish in any order; the status lists their errors in a stable one.
  errors.sort();
  return errors;
}

/**
 * Replaces `existing` by `generated` (PUT at the version read, so a concurrent write is a conflict, not lost): the
 * generated spec with the pending operation kept, the template's labels over the App's, the delete policy the
 * AppSet decides.
 */
async function replaceApp(mgmt: ObjectClient, existing: AppResource, generated: AppResource): Promise<void> {
  const { status: _status, ...rest } = existing;
  const annotations = { ...existing.metadata.annotations };
  const policy = generated.metadata.annotations?.[DELETE_POLICY_ANNOTATION];
  if (policy) annotations[DELETE_POLICY_ANNOTATION] = policy;
  else delete annotations[DELETE_POLICY_ANNOTATION];
  const op = existing.spec.operation;
  const body = {
    ...rest,
    metadata: {
      ...existing.metadata,
      labels: { ...existing.metadata.labels, ...generated.metadata.labels },
      annotations,
    },
    spec: { ...generated.spec, ...(op ? { operation: op } : {}) },
  };
  const path = await mgmt.path({
    apiVersion: APP_API_VERSION,
    kind: APP_KIND,
    namespace: existing.metadata.namespace ?? '',
    name: existing.metadata.name,
  });
  await mgmt.client.request(path, { method: 'PUT', query: { fieldManager: APPSET_FIELD_MANAGER }, body });
}

/** Writes the status when it changed: the AppSet's Apps (sync and health as last seen) and the errors. */
async function writeStatus(
  deps: AppSetReconcileDeps,
  appSet: AppSetResource,
  apps: AppResource[],
  errors: string[],
  rollout?: RolloutStatus,
): Promise<void> {
  const status: AppSetStatus = {
    ...(appSet.metadata.generation !== undefined ? { observedGeneration: appSet.metadata.generation } : {}),
    apps: apps
      .map((a) => ({
        name: a.metadata.name,
        namespace: a.spec.destination.namespace,
        ...(a.status?.syncStatus ? { syncStatus: a.status.syncStatus } : {}),
        ...(a.status?.healthStatus ? { healthStatus: a.status.healthStatus } : {}),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    ...(rollout && appSet.spec.strategy ? { rollout } : {}),
    ...(errors.length > 0 ? { errors: errors.slice(0, MAX_ERRORS) } : {}),
  };
  if (isDeepStrictEqual(status, appSet.status ?? {})) return;
  if (!deps.mayWrite()) return;
  // Merge patch: absent errors are removed explicitly.
  const patch = { status: { ...status, errors: status.errors ?? null, rollout: status.rollout ?? null } };
  const ref = {
    apiVersion: APP_API_VERSION,
    kind: APPSET_KIND,
    namespace: appSet.metadata.namespace ?? '',
    name: appSet.metadata.name,
  };
  await deps.mgmt.mergePatch(ref, patch, 'status');
}
