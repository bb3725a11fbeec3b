/**
 * The incident detector (docs/incidents.md "Detection"): derives incidents and events from the API server's App
 * cache (every App's status, as the operator wrote it), on one server replica at a time (the database lease
 * `incident-detector`). While it holds the lease it observes every App that changes, one at a time, and on taking
 * the lease it observes every App in the cache and every App it observed before (so what changed while no detector
 * ran, including Apps deleted meanwhile, is made up for). The operator takes no part: it has no database.
 */
import type { Kysely } from 'kysely';
import type { AppCacheReader } from '../core/app-cache.ts';
import { type BackoffPolicy, backoffDelay } from '../core/backoff.ts';
import { describeError } from '../core/errors.ts';
import { orgSlugOf } from '../core/names.ts';
import type { Logger } from '../log.ts';
import type { Tables } from '../store/database.ts';
import { LeaseKeeper } from '../store/lease-keeper.ts';
import { ObservationStore } from '../store/observations.ts';
import { inTransaction } from '../store/transaction.ts';
import { type OrgRef, recordObservation } from './record-observation.ts';

/** Name of the detector's lease. */
export const DETECTOR_LEASE = 'incident-detector';

export interface DetectorOptions {
  db: Kysely<Tables>;
  kube: AppCacheReader;
  logger: Logger;
  /** This replica's name in the lease. */
  holder: string;
  /** Lease time to live (default 30 s): how long a dead holder blocks the others. */
  leaseTtlMs?: number;
  /** Called after events were recorded (wakes the delivery dispatcher). */
  onEvents?: () => void;
}

const key = (ns: string, name: string) => `${ns}/${name}`;

/** An App whose observation failed (the database is down, say) is observed again after this backoff. */
const RETRY: BackoffPolicy = { baseMs: 2_000, maxMs: 60_000, jitter: 0.2 };

export class IncidentDetector {
  readonly #options: DetectorOptions;
  readonly #lease: LeaseKeeper;
  readonly #queue = new Set<string>();
  readonly #orgs = new Map<string, OrgRef>();
  /** Consecutive failed observations per App key, for the retry backoff. */
  readonly #failures = new Map<string, number>();
  #unsubscribe: (() => void) | undefined;
  #active = false;
  #draining: Promise<void> | undefined;

  constructor(options: DetectorOptions) {
    this.#options = options;
    this.#lease = new LeaseKeeper({
      db: options.db,
      name: DETECTOR_LEASE,
      holder: options.holder,
      ttlMs: options.leaseTtlMs ?? 30_000,
      logger: options.logger,
      onAcquired: () => this.#activate(),
      onLost: () => this.#deactivate(),
    });
  }

  /** True while this replica is the detector. */
  get active(): boolean {
    return this.#active;
  }

  /** Starts contending for the lease. */
  start(): void {
    this.#lease.start();
  }

  /** Stops detecting and releases the lease. */
  async stop(): Promise<void> {
    await this.#lease.stop();
    await this.#draining;
  }

  #activate(): void {
    this.#active = true;
    this.#options.logger.info('incident detector: this replica detects incidents');
    this.#unsubscribe = this.#options.kube.onChange((app) => {
      this.#enqueue(app.metadata.namespace ?? '', app.metadata.name);
    });
    void this.#catchUp();
  }

  #deactivate(): void {
    this.#active = false;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#queue.clear();
    this.#failures.clear();
    this.#options.logger.info('incident detector: lease lost or released');
  }

  /** Once the App cache has synced, observes every App it holds and every App observed before. */
  async #catchUp(): Promise<void> {
    while (this.#active && !this.#options.kube.synced) await new Promise((r) => setTimeout(r, 200));
    if (!this.#active) return;
    try {
      for (const app of this.#options.kube.cachedApps()) this.#enqueue(app.metadata.namespace ?? '', app.metadata.name);
      for (const k of await new ObservationStore(this.#options.db).keys()) this.#enqueue(k.appNs, k.appName);
    } catch (err) {
      this.#options.logger.warn(
        { err: describeError(err) },
        'incident detector: catch-up failed; Apps are observed as they change',
      );
    }
  }

  #enqueue(ns: string, name: string): void {
    if (!this.#active || orgSlugOf(ns) === undefined) return;
    this.#queue.add(key(ns, name));
    this.#kick();
  }

  /** Starts draining the queue unless a drain runs. */
  #kick(): void {
    if (this.#draining || !this.#active) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      if (this.#queue.size > 0) this.#kick();
    });
  }

  /** Observes queued Apps one at a time (a key queued again while waiting is observed once, as it is then). */
  async #drain(): Promise<void> {
    while (this.#active) {
      const next = this.#queue.values().next();
      if (next.done) return;
      this.#queue.delete(next.value);
      const [ns, name] = next.value.split('/') as [string, string];
      try {
        await this.#observe(ns, name);
        this.#failures.delete(next.value);
      } catch (err) {
        const failures = this.#failures.get(next.value) ?? 0;
        this.#failures.set(next.value, failures + 1);
        this.#options.logger.warn(
          { app: next.value, err: describeError(err) },
          'incident detector: observation failed; retrying',
        );
        // The App is observed again after its backoff; its state is read afresh then.
        setTimeout(() => this.#enqueue(ns, name), backoffDelay(failures, RETRY)).unref();
      }
    }
  }

  async #observe(ns: string, name: string): Promise<void> {
    const org = await this.#orgOf(ns);
    if (!org) return;
    const app = this.#options.kube.cached(ns, name);
    const events = await inTransaction(this.#options.db, (tx) => recordObservation(tx, org, ns, name, app));
    if (events > 0) this.#options.onEvents?.();
  }

  /** The org owning an App namespace (cached; orgs keep their id and slug). */
  async #orgOf(ns: string): Promise<OrgRef | undefined> {
    const known = this.#orgs.get(ns);
    if (known) return known;
    const slug = orgSlugOf(ns);
    if (!slug) return undefined;
    const row = await this.#options.db
      .selectFrom('organization')
      .select(['id', 'slug'])
      .where('slug', '=', slug)
      .executeTakeFirst();
    if (!row) return undefined;
    const org = { id: row.id, slug: row.slug };
    this.#orgs.set(ns, org);
    return org;
  }
}
