/**
 * `GET /apps/{namespace}/{name}/diff`: what a sync would change. The App's source is rendered at its upstream head
 * exactly as the operator renders it (api/kube/desired.ts), each object is server-side applied with `dryRun=All`
 * against the destination (what the apiserver would make of it, defaults and other managers' fields included) and
 * compared with the live object (apps/diff.ts: noise stripped, Secret values masked). Objects the App owns
 * (status.inventory) that left the rendered set are `extra`. The answer's `sync_status` comes from the operator's
 * own rule (`syncStatusOf`) over the same revision (the head the operator last observed), hash and liveness, so it
 * agrees with the App's syncStatus; when upstream moved since the operator looked, `revision.head` says so.
 */

import type { AppResource, IgnoreDifference } from '../../core/app-schema.ts';
import { syncStatusOf } from '../../core/app-state.ts';
import { mapLimit } from '../../core/concurrency.ts';
import { describeError } from '../../core/errors.ts';
import type { DesiredState } from '../../engine/desired-state.ts';
import { diffObject, type ObjectDiff } from '../../engine/diff.ts';
import { respectIgnored } from '../../engine/drift.ts';
import { ignoredOf } from '../../engine/ignore.ts';
import { entryOf, refOf } from '../../engine/inventory.ts';
import type { AnyObject, KubeConnection, ObjectRef } from '../../kube/index.ts';
import type { Destinations } from '../kube/destinations.ts';

/** Dry runs and reads in flight per diff. */
const CONCURRENCY = 8;

/** The answer of the diff route. */
export interface AppDiff {
  name: string;
  namespace: string;
  /** Synced or OutOfSync by the operator's rule over this diff's head, hash and liveness. */
  sync_status: 'Synced' | 'OutOfSync';
  /**
   * A live object lost a field svc applied to another writer (edited out of band, src/engine/drift.ts): the App is
   * then OutOfSync by the same rule. With selfHeal the operator re-applies it; otherwise a Sync does.
   */
  drifted: boolean;
  /** The App's status.syncStatus as the operator last recorded it. */
  recorded_sync_status: string;
  /** The applied revision, the one compared against (what the operator last observed), and the upstream head now. */
  revision: { applied: string; compared: string; head: string; ref?: string };
  summary: { same: number; changed: number; missing: number; extra: number };
  objects: ObjectDiff[];
  /** Every object's unified diff, concatenated. */
  unified: string;
}

function refOfObject(o: AnyObject): ObjectRef {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
  };
}

/** Computes App diffs. */
export class DiffService {
  readonly #destinations: Destinations;
  readonly #desired: () => Promise<DesiredState>;

  constructor(destinations: Destinations, desired: () => Promise<DesiredState>) {
    this.#destinations = destinations;
    this.#desired = desired;
  }

  /**
   * The diff of the org's App `app`, or, with `ref`, of the commit that ref of its repository names now (a preview
   * before merge: rendered and dry-run applied like any diff, nothing written). Render failures answer with their
   * typed error (400 / 502); a ref the repository does not have 422.
   */
  async diff(orgId: string, app: AppResource, ref?: string): Promise<AppDiff> {
    const conn = await this.#destinations.connection(orgId, app.spec.destination.cluster ?? '');
    const desired = await (await this.#desired()).render(app, conn.discovery, ref);
    const rules = app.spec.ignoreDifferences;
    const rendered = await mapLimit(desired.objects, CONCURRENCY, (obj) => this.#compare(conn, obj, rules));
    const renderedIds = new Set(desired.objects.map((o) => entryOf(o).id));
    const extras = await this.#extras(conn, app, renderedIds);
    const objects = [...rendered, ...extras];
    const summary = { same: 0, changed: 0, missing: 0, extra: 0 };
    for (const o of objects) summary[o.status]++;
    const syncStatus = syncStatusOf({
      appliedRevision: app.status?.revision,
      appliedHash: app.status?.objectHash,
      head: desired.revision,
      hash: desired.hash,
      allLive: summary.missing === 0,
      drifted: objects.some((o) => o.drift !== undefined),
    });
    return {
      name: app.metadata.name,
      namespace: app.spec.destination.namespace,
      sync_status: syncStatus,
      drifted: objects.some((o) => o.drift !== undefined),
      recorded_sync_status: app.status?.syncStatus ?? 'Unknown',
      revision: {
        applied: app.status?.revision ?? '',
        compared: desired.revision,
        head: desired.head,
        ...(ref === undefined ? {} : { ref }),
      },
      summary,
      objects,
      unified: objects.map((o) => o.patch).join(''),
    };
  }

  /**
   * What deleting the org's App `app` would do to its destination (a preview of an AppSet that would no longer
   * generate it): every live object of its inventory removed, or none with an `orphan` delete policy (`keepObjects`),
   * which leaves them where they are. Renders nothing, writes nothing.
   */
  async removal(orgId: string, app: AppResource, keepObjects: boolean): Promise<AppDiff> {
    const conn = await this.#destinations.connection(orgId, app.spec.destination.cluster ?? '');
    const objects = keepObjects ? [] : await this.#extras(conn, app, new Set());
    const summary = { same: 0, changed: 0, missing: 0, extra: objects.length };
    const applied = app.status?.revision ?? '';
    return {
      name: app.metadata.name,
      namespace: app.spec.destination.namespace,
      sync_status: objects.length > 0 ? 'OutOfSync' : 'Synced',
      drifted: false,
      recorded_sync_status: app.status?.syncStatus ?? 'Unknown',
      revision: { applied, compared: applied, head: app.status?.observedRevision ?? applied },
      summary,
      objects,
      unified: objects.map((o) => o.patch).join(''),
    };
  }

  /** The live objects the App owns (status.inventory) outside `keep`, each as an `extra` diff. */
  async #extras(conn: KubeConnection, app: AppResource, keep: ReadonlySet<string>): Promise<ObjectDiff[]> {
    const owned = (app.status?.inventory ?? []).filter((e) => !keep.has(e.id));
    const extras = await mapLimit(owned, CONCURRENCY, async (entry) => {
      const ref = refOf(entry);
      const live = await conn.objects.get(ref).catch(() => undefined);
      if (!live) return undefined;
      const stub = {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: ref.name, namespace: ref.namespace },
      };
      return diffObject({ rendered: stub, live, predicted: undefined, inDesired: false });
    });
    return extras.filter((d): d is ObjectDiff => d !== undefined);
  }

  /**
   * One rendered object against its live self and its dry-run apply, of what the operator would apply: the fields
   * the App's ignoreDifferences name keep their live value (respectIgnored), so they never show as a change.
   */
  async #compare(conn: KubeConnection, obj: AnyObject, rules: IgnoreDifference[] | undefined): Promise<ObjectDiff> {
    const live = await conn.objects.get(refOfObject(obj));
    const ignored = ignoredOf(rules, obj);
    let predicted: AnyObject | undefined;
    let message: string | undefined;
    try {
      predicted = await conn.objects.dryRunApply(respectIgnored(obj, live, ignored));
    } catch (err) {
      // A namespace that does not exist yet (first sync) or an object the apiserver refuses: show the rendered
      // object as it is, and say why.
      message = `dry run refused, showing the rendered object: ${describeError(err)}`;
    }
    return diffObject({ rendered: obj, live, predicted, inDesired: true, ignored, ...(message ? { message } : {}) });
  }
}
