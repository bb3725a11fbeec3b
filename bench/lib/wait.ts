/**
 * End conditions, observed through watches so each App's own moment is recorded: a Deployment's rollout is
 * complete (the operator's Deployment health rule), or an App reports Synced and Healthy (or a given revision).
 */

import { Informer, type KubeClient, type AnyObject as Obj } from '../../src/kube/index.ts';
import { APPS_NAMESPACE } from './fixture.ts';

type Numbers = Record<string, unknown> | undefined;
const num = (o: Numbers, key: string, fallback = 0) => (typeof o?.[key] === 'number' ? (o[key] as number) : fallback);

/** True when a Deployment is rolled out with every desired replica available (as svc's health check says). */
export function deploymentHealthy(obj: Obj): boolean {
  const spec = obj['spec'] as Numbers;
  const status = obj['status'] as Numbers;
  const meta = obj.metadata as { generation?: number };
  const desired = num(spec, 'replicas', 1);
  if (num(status, 'observedGeneration') < (meta.generation ?? 0)) return false;
  const updated = num(status, 'updatedReplicas');
  return updated >= desired && num(status, 'replicas') <= updated && num(status, 'availableReplicas') >= updated;
}

/** An App's summary status fields. */
export interface AppStatusView {
  syncStatus?: string;
  healthStatus?: string;
  revision?: string;
}

/**
 * Watches `path` (a collection, any namespace) with svc's own Informer and records, per key, the first moment
 * (seconds since `start`) `done(obj)` holds. Resolves with those moments once `expected` keys are done, or after
 * `timeoutMs` with the keys done so far (the caller compares the size with what it expected).
 */
export async function waitForAll(
  client: KubeClient,
  path: string,
  expected: number,
  done: (obj: Obj) => string | undefined,
  start: number,
  timeoutMs: number,
  onProgress?: (count: number) => void,
): Promise<Map<string, number>> {
  const at = new Map<string, number>();
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const informer = new Informer<Obj>(client, path);
  informer.subscribe((event) => {
    if (event.type !== 'upsert') return;
    const key = done(event.obj);
    if (key === undefined || at.has(key)) return;
    at.set(key, Number(((performance.now() - start) / 1000).toFixed(3)));
    onProgress?.(at.size);
    if (at.size >= expected) finish();
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  try {
    await Promise.race([informer.start().then(() => finished), timeout]);
    return at;
  } finally {
    clearTimeout(timer);
    await informer.stop();
  }
}

/** Key of a healthy benchmark Deployment (its App's name, from the managed label), else undefined. */
export function healthyDeploymentKey(obj: Obj): string | undefined {
  return deploymentHealthy(obj) ? obj.metadata.labels?.['cd.svc.space/app'] : undefined;
}

/** Key of an App that is Synced and Healthy (and at `revision`, when given), else undefined. */
export function appReadyKey(revision?: string) {
  return (obj: Obj): string | undefined => {
    const s = (obj['status'] ?? {}) as AppStatusView;
    if (s.syncStatus !== 'Synced' || s.healthStatus !== 'Healthy') return undefined;
    if (revision !== undefined && s.revision !== revision) return undefined;
    return obj.metadata.name;
  };
}

/** Key of an App whose status reports `revision` as applied (whatever its health), else undefined. */
export function appRevisionKey(revision: string) {
  return (obj: Obj): string | undefined =>
    ((obj['status'] ?? {}) as AppStatusView).revision === revision ? obj.metadata.name : undefined;
}

/** Collection path of the benchmark's Apps. */
export const appsPath = `/apis/cd.svc.space/v1alpha1/namespaces/${APPS_NAMESPACE}/apps`;
