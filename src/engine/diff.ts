/**
 * Comparing one object as it is live with what a sync would make of it (the server-side apply dry run of the
 * rendered object): both are stripped of what the apiserver writes on its own (status, managedFields,
 * resourceVersion, uid, generation, creationTimestamp, the last-applied annotation, the Deployment revision
 * annotation), Secret values are masked (never returned, not even hashed; a changed value shows as changed), and
 * the difference is given as YAML on both sides plus a unified diff, with the fields svc applied that another writer
 * took (./drift.ts: the rule the operator's sync status and selfHeal use). Pure; no I/O.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { stringify } from 'yaml';
import type { AnyObject } from '../kube/index.ts';
import { driftOf } from './drift.ts';
import { type Ignored, NOTHING_IGNORED } from './ignore.ts';

/** How an object of the App stands. */
export type ObjectDiffStatus = 'same' | 'changed' | 'missing' | 'extra';

/** One object of the diff. */
export interface ObjectDiff {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  status: ObjectDiffStatus;
  /** Stripped, masked YAML ('' when the object does not exist on that side). */
  live: string;
  desired: string;
  /** Unified diff of live → desired ('' when the same). */
  patch: string;
  /** Why the desired side could only be approximated (e.g. the dry run was refused), else absent. */
  message?: string;
  /** The fields svc applied that another writer took or removed (./drift.ts), when the live object drifted. */
  drift?: { fields: string[]; taken_by: string[] };
}

const NOISY_METADATA = ['managedFields', 'resourceVersion', 'uid', 'generation', 'creationTimestamp', 'selfLink'];
const NOISY_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration', 'deployment.kubernetes.io/revision'];
const MASK = '********';

/** A copy of `obj` without the fields the apiserver maintains by itself. */
export function stripNoise(obj: AnyObject): AnyObject {
  const { status: _status, ...rest } = obj as AnyObject & { status?: unknown };
  const metadata: Record<string, unknown> = { ...obj.metadata };
  for (const f of NOISY_METADATA) delete metadata[f];
  const annotations = { ...(obj.metadata.annotations ?? {}) };
  for (const a of NOISY_ANNOTATIONS) delete annotations[a];
  if (Object.keys(annotations).length > 0) metadata['annotations'] = annotations;
  else delete metadata['annotations'];
  return { ...rest, metadata: metadata as AnyObject['metadata'] };
}

function isSecret(obj: AnyObject | undefined): boolean {
  return obj?.kind === 'Secret' && obj.apiVersion === 'v1';
}

/**
 * Both sides with Secret values masked: equal values become the same mask, values that differ become masks that
 * differ (`******** (live)` / `******** (desired)`), so the diff shows which keys change and nothing of a value.
 */
export function maskSecrets(
  live: AnyObject | undefined,
  desired: AnyObject | undefined,
): [AnyObject | undefined, AnyObject | undefined] {
  if (!isSecret(live) && !isSecret(desired)) return [live, desired];
  const out: [AnyObject | undefined, AnyObject | undefined] = [live && { ...live }, desired && { ...desired }];
  for (const field of ['data', 'stringData']) {
    const [maskedLive, maskedDesired] = maskField(live?.[field], desired?.[field]);
    if (out[0] && live?.[field] !== undefined) out[0][field] = maskedLive;
    if (out[1] && desired?.[field] !== undefined) out[1][field] = maskedDesired;
  }
  return out;
}

/** One map of Secret values masked on both sides (see maskSecrets). */
function maskField(live: unknown, desired: unknown): [Record<string, string>, Record<string, string>] {
  const l = (live ?? {}) as Record<string, unknown>;
  const d = (desired ?? {}) as Record<string, unknown>;
  const maskedLive: Record<string, string> = {};
  const maskedDesired: Record<string, string> = {};
  for (const key of new Set([...Object.keys(l), ...Object.keys(d)])) {
    const same = key in l && key in d && l[key] === d[key];
    if (key in l) maskedLive[key] = same ? MASK : `${MASK} (live)`;
    if (key in d) maskedDesired[key] = same ? MASK : `${MASK} (desired)`;
  }
  return [maskedLive, maskedDesired];
}

/** Sorted keys all the way down, so YAML of equal objects is equal text. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Canonical YAML of an object ('' for none), with apiVersion, kind and metadata first as people read it. */
export function toYaml(obj: AnyObject | undefined): string {
  if (!obj) return '';
  const { apiVersion, kind, metadata, ...rest } = obj;
  return stringify({ apiVersion, kind, metadata: canonical(metadata), ...(canonical(rest) as object) });
}

/** The object's identity as a path in the unified diff. */
function label(o: { kind: string; namespace: string; name: string }): string {
  return `${o.kind}/${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

/**
 * Compares the live object with what a sync would make of it (`predicted`, or the rendered object when the dry run
 * could not be made; `rendered` names the object). `inDesired` false marks an object the App owns that left the
 * rendered set (pruned by the next sync when syncPolicy.prune is set).
 */
export function diffObject(input: {
  rendered: AnyObject;
  live: AnyObject | undefined;
  predicted: AnyObject | undefined;
  inDesired: boolean;
  message?: string;
  /** What the App's ignoreDifferences ignore of the object (never drift). */
  ignored?: Ignored;
}): ObjectDiff {
  const id = {
    apiVersion: input.rendered.apiVersion,
    kind: input.rendered.kind,
    name: input.rendered.metadata.name,
    namespace: input.rendered.metadata.namespace ?? '',
  };
  const desiredObj = input.inDesired ? stripNoise(input.predicted ?? input.rendered) : undefined;
  const liveObj = input.live ? stripNoise(input.live) : undefined;
  const [maskedLive, maskedDesired] = maskSecrets(liveObj, desiredObj);
  const live = toYaml(maskedLive);
  const desired = toYaml(maskedDesired);
  let status: ObjectDiffStatus;
  if (!input.inDesired) status = 'extra';
  else if (!input.live) status = 'missing';
  else status = live === desired ? 'same' : 'changed';
  const name = label(id);
  const drifted =
    input.inDesired && input.live ? driftOf(input.rendered, input.live, input.ignored ?? NOTHING_IGNORED) : undefined;
  const drift = drifted ? { drift: { fields: drifted.fields, taken_by: drifted.takenBy } } : {};
  const patch =
    status === 'same'
      ? ''
      : createTwoFilesPatch(`live/${name}`, `desired/${name}`, live, desired, '', '', {
          context: 3,
          headerOptions: FILE_HEADERS_ONLY,
        });
  return { ...id, status, live, desired, patch, ...(input.message ? { message: input.message } : {}), ...drift };
}
