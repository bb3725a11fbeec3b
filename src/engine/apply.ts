/**
 * Apply: server-side applies each prepared object (./desired.ts; field manager svc-operator, forced), rank by rank,
 * the objects of one rank a few at a time. Every object is attempted; failures are collected so one bad object names
 * itself. (The destination namespace is created before, by src/kube's ensureNamespace.)
 */
import { type BackoffPolicy, backoffDelay } from '../core/backoff.ts';
import { mapLimit, sleep } from '../core/concurrency.ts';
import { describeError, type RetryHint } from '../core/errors.ts';
import { type AnyObject, hintOf, isNotFound, type ObjectClient } from '../kube/index.ts';
import { applyRank } from './desired.ts';

export interface ApplyResult {
  applied: AnyObject[];
  /** One line per object that failed: `Kind namespace/name: reason`. */
  errors: string[];
  /** What to do about the failures: `retry` when any was transient (server unreachable or failing), else `wait`. */
  hint: RetryHint;
}

/** Objects of one rank applied at once: an App's Deployment, Service and ConfigMaps go out together. */
const APPLY_CONCURRENCY = 4;

/**
 * Applies `objects` (as `prepareObjects` ordered them) rank by rank: Namespaces, then CRDs (waited for until
 * Established), then everything else, up to APPLY_CONCURRENCY objects of a rank at once; `applied` keeps the input
 * order. `beforeEach` runs before every write and may throw to stop (fencing).
 */
export async function applyObjects(
  target: ObjectClient,
  objects: AnyObject[],
  beforeEach: () => void = () => {},
): Promise<ApplyResult> {
  const results: (AnyObject | undefined)[] = [];
  const errors: string[] = [];
  let hint: RetryHint = 'wait';
  const applyOne = async (obj: AnyObject): Promise<AnyObject | undefined> => {
    beforeEach();
    try {
      return await target.apply(obj);
    } catch (err) {
      const where = obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
      errors.push(`${obj.kind} ${where}: ${describeError(err)}`);
      if (hintOf(err) === 'retry') hint = 'retry';
      return undefined;
    }
  };
  for (const rank of ranks(objects)) {
    const done = await mapLimit(rank, APPLY_CONCURRENCY, applyOne);
    results.push(...done);
    // The objects after the CRDs may be their custom resources: wait until the CRDs just applied are served.
    const crds = rank.filter((o, i) => o.kind === 'CustomResourceDefinition' && done[i] !== undefined);
    if (crds.length > 0) await waitForCrds(target, crds);
  }
  return { applied: results.filter((o): o is AnyObject => o !== undefined), errors, hint };
}

/** `objects` (already in apply order) cut into runs of the same rank. */
function ranks(objects: AnyObject[]): AnyObject[][] {
  const out: AnyObject[][] = [];
  let last: number | undefined;
  for (const o of objects) {
    const rank = applyRank(o);
    if (rank !== last) out.push([]);
    out.at(-1)?.push(o);
    last = rank;
  }
  return out;
}

/** How often a CRD just applied is read until it is Established: from 50 ms, doubling to 1 s. */
const CRD_POLL: BackoffPolicy = { baseMs: 50, maxMs: 1_000, jitter: 0 };

async function waitForCrds(target: ObjectClient, crds: AnyObject[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (const crd of crds) {
    let polls = 0;
    const ref = { apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name };
    while (Date.now() < deadline) {
      const live = await target.get(ref).catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
      const conds = (live?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions;
      if (conds?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      await sleep(backoffDelay(polls++, CRD_POLL));
    }
    const spec = crd['spec'] as { group?: string; versions?: { name: string }[] } | undefined;
    for (const v of spec?.versions ?? []) target.discovery.invalidate(`${spec?.group}/${v.name}`);
  }
}
