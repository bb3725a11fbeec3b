/**
 * The background jobs of one server process: the delivery dispatcher (every replica) and, with a management
 * cluster, the incident detector (one replica at a time). Started when the server is ready, stopped when it closes.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { AppCacheReader } from '../core/app-cache.ts';
import { IncidentDetector } from '../incidents/detector.ts';
import type { Logger } from '../log.ts';
import type { Sealer } from '../secrets/seal.ts';
import type { Tables } from '../store/database.ts';
import { DeliveryDispatcher } from '../webhooks/dispatcher.ts';

export interface BackgroundJobsOptions {
  db: Kysely<Tables>;
  config: Pick<Config, 'outbound' | 'webhookRetry'>;
  sealer: Sealer;
  logger: Logger;
  /** The App cache; without one (no management cluster) nothing is detected. */
  kube: AppCacheReader | undefined;
}

export class BackgroundJobs {
  /** This process's name in leases and delivery claims. */
  readonly holder = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly dispatcher: DeliveryDispatcher;
  readonly detector: IncidentDetector | undefined;

  constructor(o: BackgroundJobsOptions) {
    const logger = o.logger.child({ component: 'ops' });
    this.dispatcher = new DeliveryDispatcher({
      db: o.db,
      sealer: o.sealer,
      outbound: o.config.outbound,
      retry: o.config.webhookRetry,
      logger,
      holder: this.holder,
    });
    this.detector = o.kube
      ? new IncidentDetector({
          db: o.db,
          kube: o.kube,
          logger,
          holder: this.holder,
          onEvents: () => this.dispatcher.poke(),
        })
      : undefined;
  }

  /** Starts delivering and (with a management cluster) contending to detect. */
  start(): void {
    this.dispatcher.start();
    this.detector?.start();
  }

  /** Wakes the dispatcher: something was queued in this process. */
  queued(): void {
    this.dispatcher.poke();
  }

  async stop(): Promise<void> {
    await this.detector?.stop();
    await this.dispatcher.stop();
  }
}
