/**
 * Keeps a database lease (`DbLease`, src/store/lease.ts) while the process runs: tries to take it every third of its time to
 * live, renews it while held, and says when it was gained or lost. One holder per name across server replicas.
 */

import type { Kysely } from 'kysely';
import { describeError } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import type { Tables } from './database.ts';
import { DbLease } from './lease.ts';

export interface LeaseKeeperOptions {
  db: Kysely<Tables>;
  name: string;
  holder: string;
  ttlMs: number;
  logger: Logger;
  onAcquired: () => void;
  onLost: () => void;
}

export class LeaseKeeper {
  readonly #options: LeaseKeeperOptions;
  readonly #lease: DbLease;
  #held = false;
  /** When the lease was last taken or renewed (ms). */
  #renewedAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;

  constructor(options: LeaseKeeperOptions) {
    this.#options = options;
    this.#lease = new DbLease(options.db, { name: options.name, holder: options.holder, ttlMs: options.ttlMs });
  }

  /** True while this process holds the lease. */
  get held(): boolean {
    return this.#held;
  }

  /** Starts contending (at once, then every ttl/3). */
  start(): void {
    if (this.#timer) return;
    const run = () => {
      this.#tick = this.#renew();
    };
    run();
    this.#timer = setInterval(run, Math.max(100, Math.floor(this.#options.ttlMs / 3)));
  }

  /** Stops contending and gives the lease up, so another replica takes over at once. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#tick;
    if (this.#held) {
      this.#held = false;
      this.#options.onLost();
      await this.#lease.release().catch(() => undefined);
    }
  }

  async #renew(): Promise<void> {
    let holds = false;
    try {
      holds = await this.#lease.tryAcquire();
      if (holds) this.#renewedAt = Date.now();
    } catch (err) {
      this.#options.logger.warn(
        { lease: this.#options.name, err: describeError(err) },
        'lease: cannot reach the database',
      );
      // Unrenewed, the lease stays ours only until it expires; after that another replica may hold it.
      holds = this.#held && Date.now() - this.#renewedAt < this.#options.ttlMs;
    }
    if (!this.#timer) return;
    if (holds && !this.#held) {
      this.#held = true;
      this.#options.onAcquired();
    } else if (!holds && this.#held) {
      this.#held = false;
      this.#options.onLost();
    }
  }
}
