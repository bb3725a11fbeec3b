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
import { isPending, operationLifecycle, writeOperation } from '../../core/app-state.ts';
import { type RetryPolicy, retryDelayMs } from '../../core/backoff.ts';
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
/**
 * When a notification finds its App busy with another operation, the check is repeated on this schedule (2 s
 * doubling to 1 min, about 5 min in all) so the push is not left for the next poll, which may be an hour away.
 */
const BUSY_RETRY: RetryPolicy = { baseMs: 2_000, maxMs: 60_000, attempts: 8 };

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
  /** Notification checks waiting for a busy App, by `namespace/name`. */
  readonly #rechecks = new Map<string, NodeJS.Timeout>();

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
    for (const t of this.#rechecks.values()) clearTimeout(t);
    this.#rechecks.clear();
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
  async poll(options: {
    trigger: PollTrigger;
    match?: (f: FollowApp) => boolean;
    /** Which recheck of a busy App this poll is (0: not a recheck). */
    retry?: number;
  }): Promise<PollReport> {
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
        const outcome = await this.#deploy(f, digest, options.trigger);
        if (outcome === 'deployed') report.deployed.push(f.app.metadata.name);
        if (outcome === 'busy' && options.trigger === 'notification') {
          this.#recheckLater(f.app, (options.retry ?? 0) + 1);
        }
      }
    });
    return report;
  }

  /**
   * Repeats a notification's check for one App that had another operation pending, on BUSY_RETRY's schedule, until
   * the Deploy is written, the App no longer needs it, or the attempts run out (the interval's poll remains).
   */
  #recheckLater(app: AppResource, retry: number): void {
    const ns = app.metadata.namespace ?? '';
    const key = `${ns}/${app.metadata.name}`;
    if (retry >= BUSY_RETRY.attempts || (retry === 1 && this.#rechecks.has(key))) return;
    const timer = setTimeout(
      () => {
        this.#rechecks.delete(key);
        // The same check as the notification's, narrowed to this App; still busy, it schedules the next retry.
        const same = (f: FollowApp) => f.app.metadata.namespace === ns && f.app.metadata.name === app.metadata.name;
        this.poll({ trigger: 'notification', match: same, retry }).catch((err: unknown) =>
          this.#deps.logger.warn({ app: key, err: describeError(err) }, 'tag poller: recheck failed'),
        );
      },
      retryDelayMs(BUSY_RETRY, retry),
    );
    timer.unref();
    this.#rechecks.set(key, timer);
  }

  /**
   * Writes the Deploy and its audit entry. 'busy' when the App has another operation pending (left for later),
   * 'skipped' when the App no longer needs it or the write failed.
   */
  async #deploy(f: FollowApp, digest: string, trigger: PollTrigger): Promise<'deployed' | 'busy' | 'skipped'> {
    const ns = f.app.metadata.namespace ?? '';
    const io = operationIO(this.#deps.kube, ns, f.app.metadata.name);
    // The cache may still show an operation the apiserver has since recorded as finished: read the App again
    // before calling it busy.
    const app = isPending(operationLifecycle(f.app)) ? await io.read() : f.app;
    if (!app || !stillMoved(f.app, app, digest)) return 'skipped';
    let id: string;
    try {
      id = await writeOperation(
        io,
        app,
        { kind: 'Deploy', revision: digest, triggeredBy: POLLER_IDENTITY },
        // The cache may lag the App (a Sync that just finished, as when a push follows it at once): what the
        // poller decided on still holds if the spec is the same, it still follows, and it has not seen the digest.
        { stillValid: (read, fresh) => stillMoved(read, fresh, digest) },
      );
    } catch (err) {
      // Another operation won the App (or was pending already): the recheck decides again on a fresh read.
      if (err instanceof ConflictError) return 'busy';
      this.#deps.logger.warn(
        { app: `${ns}/${app.metadata.name}`, err: describeError(err) },
        'tag poller: deploy failed',
      );
      return 'skipped';
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
    return 'deployed';
  }
}
