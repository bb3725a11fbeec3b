/**
 * The tag poller (contract §2.3 `tagPolicy: Follow`, §2.8, §8 `SVC_TAG_POLL_INTERVAL`): runs in the server, on one
 * replica at a time (a lease in the shared database, ./../../store/lease.ts), every interval (default 5m).
 *
 * Each poll takes the Follow Apps from the server's App cache, groups them by what a registry is asked (the org's
 * registry, or anonymous; repository; tag) and resolves each group's tag ONCE, however many Apps follow it. An App
 * whose tag now points at another digest than the newest it has seen (`status.observedRevision`) gets a Deploy
 * operation pinned to that digest (triggeredBy `svc:tag-poller`), audited `app.deploy` with an empty user_id.
 * Frozen Apps, Apps being deleted, Apps the operator has not resolved yet, and Apps with a pending operation are
 * left for a later poll. A registry notification (./notifications.ts) runs the same check at once for the Apps it
 * concerns.
 */
import type { AppResource, ImageSource } from '../../core/app-schema.ts';
import { writeOperation } from '../../core/app-state.ts';
import { mapLimit } from '../../core/concurrency.ts';
import { ConflictError, describeError } from '../../core/errors.ts';
import type { Logger } from '../../log.ts';
import type { AuditStore } from '../../store/audit.ts';
import type { DbLease } from '../../store/lease.ts';
import { appAuditNote } from '../apps/audit-note.ts';
import { operationIO } from '../apps/scope.ts';
import type { KubeApps } from '../kube/apps-repo.ts';
import type { OrgImages } from './images.ts';

/** `spec.operation.triggeredBy` of the poller's Deploys. */
export const POLLER_IDENTITY = 'svc:tag-poller';
/** Registry requests in flight at once during a poll. */
const POLL_CONCURRENCY = 8;
/** How often the lease is renewed (and, when free, taken); it lives three times as long. */
const LEASE_RENEW_MS = 10_000;

/** A Follow App, with the org that owns it. */
export interface FollowApp {
  app: AppResource;
  orgId: string;
  image: ImageSource;
}

/** What one poll did. */
export interface PollReport {
  /** Follow Apps considered. */
  apps: number;
  /** Distinct registry/repository/tag groups, each resolved once. */
  resolved: number;
  /** Groups whose tag could not be resolved. */
  failed: number;
  /** Apps given a Deploy. */
  deployed: string[];
}

/** Why a poll runs: the interval, or a registry notification. */
export type PollTrigger = 'poll' | 'notification';

export interface TagPollerDeps {
  /** The server's Apps (its App cache) and the writes of an operation. */
  kube: Pick<KubeApps, 'all' | 'get' | 'mergePatch'>;
  /** The id of the org owning an org namespace, undefined when this database knows none. */
  orgOf: (orgNamespace: string) => Promise<string | undefined>;
  images: OrgImages;
  audit: AuditStore;
  logger: Logger;
  intervalMs: number;
  /** The lease that makes one replica the poller. */
  lease: DbLease;
}

/** The group key of a Follow App: what the registry is asked, and with whose credentials. */
export function followKey(f: FollowApp): string {
  const owner = f.image.registryRef === undefined ? '' : `${f.orgId}/${f.image.registryRef}`;
  return `${owner}\0${f.image.repository}\0${f.image.tag}`;
}

/**
 * Whether a Deploy of `digest` decided on `read` (from the cache) is still due on `fresh` (from the apiserver): the
 * same spec generation, still following, and `digest` not yet seen. The pending-operation rule is checked apart.
 */
export function stillMoved(read: AppResource, fresh: AppResource, digest: string): boolean {
  return (
    read.metadata.generation === fresh.metadata.generation &&
    isFollowing(fresh) &&
    fresh.status?.observedRevision !== digest
  );
}

/** Whether the poller watches this App: an image App following its tag, seen by the operator, not frozen. */
export function isFollowing(app: AppResource): boolean {
  const image = app.spec.source.type === 'Image' ? app.spec.source.image : undefined;
  return (
    image?.tagPolicy === 'Follow' &&
    app.metadata.deletionTimestamp === undefined &&
    app.spec.freeze !== true &&
    Boolean(app.status?.observedRevision)
  );
}

export class TagPoller {
  readonly #deps: TagPollerDeps;
  #timers: NodeJS.Timeout[] = [];
  #leading = false;
  #running: Promise<unknown> | undefined;

  constructor(deps: TagPollerDeps) {
    this.#deps = deps;
  }

  /** True while this replica holds the poller's lease. */
  get leading(): boolean {
    return this.#leading;
  }

  /** Starts renewing the lease and polling every interval while holding it. */
  start(): void {
    const renew = () => {
      this.#deps.lease.tryAcquire().then(
        (held) => {
          if (held !== this.#leading) this.#deps.logger.info({ leading: held }, 'tag poller lease');
          this.#leading = held;
        },
        (err: unknown) => {
          this.#leading = false;
          this.#deps.logger.warn({ err: describeError(err) }, 'tag poller: lease renewal failed');
        },
      );
    };
    renew();
    const tick = () => {
      // One poll at a time: a slow registry delays the next poll rather than stacking them.
      if (!this.#leading || this.#running) return;
      this.#running = this.poll({ trigger: 'poll' })
        .catch((err: unknown) => this.#deps.logger.warn({ err: describeError(err) }, 'tag poll failed'))
        .finally(() => {
          this.#running = undefined;
        });
    };
    this.#timers = [
      setInterval(renew, Math.min(LEASE_RENEW_MS, this.#deps.intervalMs)),
      setInterval(tick, this.#deps.intervalMs),
    ];
    for (const t of this.#timers) t.unref();
  }

  /** Stops polling, waits for a running poll, and releases the lease. */
  async stop(): Promise<void> {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    await this.#running;
    if (this.#leading) await this.#deps.lease.release().catch(() => undefined);
    this.#leading = false;
  }

  /** The Follow Apps of every org this database knows (Apps of unknown orgs are not this server's). */
  async followApps(): Promise<FollowApp[]> {
    const apps = (await this.#deps.kube.all()).filter(isFollowing);
    const orgs = new Map<string, string | undefined>();
    const out: FollowApp[] = [];
    for (const app of apps) {
      const ns = app.metadata.namespace ?? '';
      if (!orgs.has(ns)) orgs.set(ns, await this.#deps.orgOf(ns));
      const orgId = orgs.get(ns);
      const image = app.spec.source.image;
      if (orgId && image) out.push({ app, orgId, image });
    }
    return out;
  }

  /**
   * One poll over the Follow Apps (`match` narrows them, e.g. to a notification's repository and tag): each
   * group's tag resolved once, a Deploy for every App whose tag moved.
   */
  async poll(options: { trigger: PollTrigger; match?: (f: FollowApp) => boolean }): Promise<PollReport> {
    const all = await this.followApps();
    const apps = options.match ? all.filter(options.match) : all;
    const groups = new Map<string, FollowApp[]>();
    for (const f of apps) {
      const key = followKey(f);
      const members = groups.get(key);
      if (members) members.push(f);
      else groups.set(key, [f]);
    }
    const report: PollReport = { apps: apps.length, resolved: 0, failed: 0, deployed: [] };
    await mapLimit([...groups.values()], POLL_CONCURRENCY, async (members) => {
      const first = members[0] as FollowApp;
      let digest: string;
      try {
        digest = (await this.#deps.images.resolve(first.orgId, first.image)).digest;
        report.resolved++;
      } catch (err) {
        report.failed++;
        this.#deps.logger.warn(
          { repository: first.image.repository, tag: first.image.tag, err: describeError(err) },
          'tag poller: cannot resolve the tag',
        );
        return;
      }
      for (const f of members) {
        if (f.app.status?.observedRevision === digest) continue;
        if (await this.#deploy(f, digest, options.trigger)) report.deployed.push(f.app.metadata.name);
      }
    });
    return report;
  }

  /** Writes the Deploy and its audit entry; false when the App has a pending operation (left for later). */
  async #deploy(f: FollowApp, digest: string, trigger: PollTrigger): Promise<boolean> {
    const { app } = f;
    const ns = app.metadata.namespace ?? '';
    let id: string;
    try {
      id = await writeOperation(
        operationIO(this.#deps.kube, ns, app.metadata.name),
        app,
        { kind: 'Deploy', revision: digest, triggeredBy: POLLER_IDENTITY },
        // The cache may lag the App (a Sync that just finished, as when a push follows it at once): what the
        // poller decided on still holds if the spec is the same, it still follows, and it has not seen the digest.
        { stillValid: (read, fresh) => stillMoved(read, fresh, digest) },
      );
    } catch (err) {
      if (err instanceof ConflictError) return false;
      this.#deps.logger.warn(
        { app: `${ns}/${app.metadata.name}`, err: describeError(err) },
        'tag poller: deploy failed',
      );
      return false;
    }
    await this.#deps.audit.record({
      orgId: f.orgId,
      userId: '',
      ...appAuditNote('app.deploy', app, {
        operation_id: id,
        tag: f.image.tag,
        digest,
        previous: app.status?.observedRevision ?? '',
        trigger,
      }),
    });
    return true;
  }
}
