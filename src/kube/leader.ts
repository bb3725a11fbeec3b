/**
 * Leader election on a coordination.k8s.io/v1 Lease, like client-go's: the holder renews `renewTime` every retry
 * period; a contender takes the Lease once it has seen the same record unchanged for a whole lease duration
 * (measured on its own clock, so clock skew between processes does not matter); every write carries the
 * resourceVersion read, so two contenders can never both win. A leader that cannot renew within the renew
 * deadline steps down.
 */
import type { KubeClient } from './client.ts';
import { isConflict, isNotFound } from './errors.ts';

/** Lease identity, timings (defaults 15 s / 10 s / 2 s as in client-go) and leadership callbacks. */
export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  onError?: (err: unknown) => void;
}

interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** A Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Runs leader election until stopped. */
export class LeaderElector {
  readonly #options: Required<Omit<LeaderElectionOptions, 'onError'>> & Pick<LeaderElectionOptions, 'onError'>;
  #leader = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #lastRenew = 0;
  #observed: { key: string; at: number } | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(options: LeaderElectionOptions) {
    this.#options = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...options };
  }

  /** True while this process holds the Lease. */
  get isLeader(): boolean {
    return this.#leader;
  }

  /** Starts trying to acquire, then renewing, the Lease. */
  start(): void {
    const tick = () => {
      if (this.#stopped) return;
      this.#running = this.#tryOnce()
        .catch((err: unknown) => this.#options.onError?.(err))
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(tick, this.#options.retryPeriodMs);
        });
    };
    tick();
  }

  /**
   * Stops electing. With `release` (a clean shutdown) a held Lease is handed back at once so another process can
   * take over without waiting for it to expire; without it (a crash) the Lease simply runs out.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    if (this.#leader && options.release !== false) {
      try {
        const lease = await this.#read();
        if (lease?.spec.holderIdentity === this.#options.identity) {
          lease.spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime() };
          await this.#write(lease, 'PUT');
        }
      } catch (err) {
        this.#options.onError?.(err);
      }
    }
    this.#setLeader(false);
  }

  async #tryOnce(): Promise<void> {
    const now = Date.now();
    try {
      await this.#acquireOrRenew(now);
    } catch (err) {
      if (this.#leader && Date.now() - this.#lastRenew > this.#options.renewDeadlineMs) this.#setLeader(false);
      if (!isConflict(err)) throw err;
    }
  }

  async #acquireOrRenew(now: number): Promise<void> {
    const lease = await this.#read();
    const seconds = Math.max(1, Math.round(this.#options.leaseDurationMs / 1000));
    if (!lease) {
      await this.#write(
        {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.#options.name, namespace: this.#options.namespace },
          spec: {
            holderIdentity: this.#options.identity,
            leaseDurationSeconds: seconds,
            acquireTime: microTime(),
            renewTime: microTime(),
            leaseTransitions: 0,
          },
        },
        'POST',
      );
      this.#renewed();
      return;
    }
    const holder = lease.spec.holderIdentity ?? '';
    if (holder === this.#options.identity) {
      lease.spec = { ...lease.spec, renewTime: microTime(), leaseDurationSeconds: seconds };
      await this.#write(lease, 'PUT');
      this.#renewed();
      return;
    }
    if (this.#leader) this.#setLeader(false);
    const key = `${holder}|${lease.spec.renewTime ?? ''}|${lease.metadata.resourceVersion ?? ''}`;
    if (this.#observed?.key !== key) this.#observed = { key, at: now };
    const durationMs = (lease.spec.leaseDurationSeconds ?? seconds) * 1000;
    if (holder !== '' && now - this.#observed.at < durationMs) return;
    lease.spec = {
      holderIdentity: this.#options.identity,
      leaseDurationSeconds: seconds,
      acquireTime: microTime(),
      renewTime: microTime(),
      leaseTransitions: (lease.spec.leaseTransitions ?? 0) + 1,
    };
    await this.#write(lease, 'PUT');
    this.#renewed();
  }

  #renewed(): void {
    this.#lastRenew = Date.now();
    if (!this.#stopped) this.#setLeader(true);
  }

  #setLeader(value: boolean): void {
    if (this.#leader === value) return;
    this.#leader = value;
    if (value) this.#options.onStartedLeading();
    else this.#options.onStoppedLeading();
  }

  #path(withName: boolean): string {
    const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.#options.namespace)}/leases`;
    return withName ? `${base}/${encodeURIComponent(this.#options.name)}` : base;
  }

  async #read(): Promise<Lease | undefined> {
    try {
      return await this.#options.client.request<Lease>(this.#path(true), { timeoutMs: this.#options.renewDeadlineMs });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async #write(lease: Lease, method: 'POST' | 'PUT'): Promise<void> {
    await this.#options.client.request(this.#path(method === 'PUT'), {
      method,
      body: lease,
      timeoutMs: this.#options.renewDeadlineMs,
    });
  }
}
