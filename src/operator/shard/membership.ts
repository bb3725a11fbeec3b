/**
 * Sharding's membership and hand-over, on Kubernetes' own coordination (no consensus of our own): each replica renews
 * a Lease of its own; the live Leases (renewed within their duration, measured on this replica's clock as client-go's
 * leader election does) are the membership, and the rendezvous assignment of that membership says who owns what.
 *
 * The fence of a hand-over: a replica adopting a new membership first stops reconciling the Apps it no longer owns
 * (`allows` refuses them at once, so a running reconcile of one ends at its next write) and waits for those
 * reconciles to end, then writes the membership's id on its Lease (its acknowledgement). It starts the Apps it gains
 * only once every live member's Lease shows that same id; until then it keeps only the Apps it owns under both the
 * old and the new membership. A replica that cannot renew within the renew deadline (shorter than the Lease duration)
 * stops reconciling everything before the others can count it dead, so a killed or cut-off replica's Apps move only
 * after it has stopped writing, exactly as a deposed leader is fenced.
 */
import type { Logger } from 'pino';
import { describeError } from '../../core/errors.ts';
import type { KubeClient } from '../../kube/index.ts';
import { Assignment } from './assign.ts';
import { SHARD_ACK_ANNOTATION, type ShardLease, ShardLeases } from './leases.ts';

/** A membership's options: the group's Lease namespace and name, this replica, timings and the controller's hooks. */
export interface ShardOptions {
  client: KubeClient;
  namespace: string;
  /** Name prefix and label value of the group's Leases (default `svc-operator`). */
  group: string;
  identity: string;
  logger: Logger;
  /** Defaults 15 s / 10 s / 2 s, as leader election's. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** The membership changed: resolve once every running reconcile `allows` now refuses has ended. */
  onRelease: () => Promise<void>;
  /**
   * Every member acknowledged the membership: start the Apps now allowed. `previous` is the membership that was
   * active before (empty after a start or a missed renew): the keys it gave this replica were never stopped.
   */
  onActive: (previous: Assignment) => void;
  /** How many Apps this replica owns now (written on its Lease, exported as a metric by the caller). */
  share: () => number;
}

/** A Lease seen unchanged since `at` (this replica's clock). */
interface Seen {
  key: string;
  at: number;
}

/** Runs this replica's membership until stopped. */
export class ShardMembership {
  readonly #o: Required<ShardOptions>;
  readonly #leases: ShardLeases;
  /** The membership this replica has applied (and acknowledged once its Lease is written). */
  #acked = new Assignment([]);
  /** The last membership every member acknowledged while this replica held `#acked` (empty during a second move). */
  #active = new Assignment([]);
  /** When the last successful renew was sent (0: never). */
  #lastRenew = 0;
  readonly #seen = new Map<string, Seen>();
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(options: ShardOptions) {
    this.#o = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...options };
    this.#leases = new ShardLeases(options.client, options.namespace, options.group, this.#o.renewDeadlineMs);
  }

  /** The members of the membership in force (this replica's acknowledged one). */
  get members(): readonly string[] {
    return this.#acked.members;
  }

  /** True once every member acknowledged the membership this replica applies (it then reconciles its whole share). */
  get active(): boolean {
    return this.#acked.members.length > 0 && this.#active.id === this.#acked.id;
  }

  /** True when this replica may reconcile (and write for) the shard key `key` now. */
  allows(key: string): boolean {
    if (this.#stopped || Date.now() - this.#lastRenew > this.#o.renewDeadlineMs) return false;
    const me = this.#o.identity;
    return this.#acked.owner(key) === me && this.#active.owner(key) === me;
  }

  /** Starts renewing and watching the membership. */
  start(): void {
    const tick = () => {
      if (this.#stopped) return;
      this.#running = this.#tick()
        .catch((err: unknown) => this.#o.logger.warn({ err: describeError(err) }, 'shard membership'))
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(tick, this.#o.retryPeriodMs);
        });
    };
    tick();
  }

  /**
   * Stops. The caller has stopped reconciling first; with `release` (a clean stop) the Lease is deleted so the
   * others take this replica's Apps at once; without (a crash) it runs out.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    if (options.release !== false) {
      await this.#leases
        .release(this.#o.identity)
        .catch((err: unknown) => this.#o.logger.warn({ err: describeError(err) }, 'shard lease release'));
    }
  }

  async #tick(): Promise<void> {
    if (!(await this.#renew())) return;
    const leases = await this.#leases.list();
    const live = this.#live(leases, Date.now());
    const view = new Assignment(live.map((l) => l.spec.holderIdentity ?? ''));
    if (view.id !== this.#acked.id) await this.#adopt(view);
    if (this.#active.id !== this.#acked.id && this.#acknowledgedByAll(live)) {
      const previous = this.#active;
      this.#active = this.#acked;
      this.#o.logger.info({ members: view.members, apps: this.#o.share() }, 'shard membership active');
      this.#o.onActive(previous);
    }
  }

  /** Renews this replica's Lease; false (and everything stopped after the renew deadline) when it failed. */
  async #renew(): Promise<boolean> {
    const sent = Date.now();
    try {
      await this.#leases.renew(this.#o.identity, this.#seconds(), this.#acked.id, this.#o.share());
    } catch (err) {
      this.#o.logger.warn({ err: describeError(err) }, 'shard lease renew failed');
      if (this.#lastRenew > 0 && Date.now() - this.#lastRenew > this.#o.renewDeadlineMs) await this.#o.onRelease();
      return false;
    }
    if (this.#lastRenew > 0 && sent - this.#lastRenew > this.#o.renewDeadlineMs) {
      // The others may have counted this replica dead meanwhile: start over owning nothing.
      this.#o.logger.warn('shard lease renewed after its deadline: rejoining with no Apps');
      this.#acked = new Assignment([]);
      this.#active = this.#acked;
    }
    this.#lastRenew = sent;
    return true;
  }

  /** Applies a new membership: fence the moved Apps, wait for their reconciles, then acknowledge it. */
  async #adopt(view: Assignment): Promise<void> {
    // Acknowledging a second membership before the first was active: own nothing until this one is.
    if (this.#active.id !== this.#acked.id) this.#active = new Assignment([]);
    this.#acked = view;
    this.#o.logger.info({ members: view.members, membership: view.id }, 'shard membership changed');
    await this.#o.onRelease();
    await this.#leases.renew(this.#o.identity, this.#seconds(), view.id, this.#o.share());
  }

  /** True when every live member's Lease acknowledges this replica's membership. */
  #acknowledgedByAll(live: ShardLease[]): boolean {
    return live.every(
      (l) =>
        l.spec.holderIdentity === this.#o.identity || l.metadata.annotations?.[SHARD_ACK_ANNOTATION] === this.#acked.id,
    );
  }

  /** The live Leases: this replica's, and every other renewed within its duration as seen from here. */
  #live(leases: ShardLease[], now: number): ShardLease[] {
    const names = new Set(leases.map((l) => l.metadata.name));
    for (const name of this.#seen.keys()) if (!names.has(name)) this.#seen.delete(name);
    return leases.filter((l) => {
      const holder = l.spec.holderIdentity ?? '';
      if (holder === this.#o.identity) return true;
      if (holder === '') return false;
      const key = `${holder}|${l.spec.renewTime ?? ''}|${l.metadata.resourceVersion ?? ''}`;
      const seen = this.#seen.get(l.metadata.name);
      if (seen?.key !== key) this.#seen.set(l.metadata.name, { key, at: now });
      const age = now - (this.#seen.get(l.metadata.name)?.at ?? now);
      const duration = (l.spec.leaseDurationSeconds ?? this.#seconds()) * 1000;
      // A replica gone for good: its Lease is removed (only if still unchanged) after ten durations.
      if (age > 10 * duration) void this.#leases.remove(l).catch(() => undefined);
      return age < duration;
    });
  }

  #seconds(): number {
    return Math.max(1, Math.round(this.#o.leaseDurationMs / 1000));
  }
}
