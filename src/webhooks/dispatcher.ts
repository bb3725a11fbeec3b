/**
 * The delivery dispatcher (docs/webhooks.md "Delivery"): runs in every server replica, takes due deliveries from the
 * durable queue in the database (row claims: `FOR UPDATE SKIP LOCKED` on PostgreSQL, so replicas share the work
 * without sending a delivery twice; an expired claim is taken over), sends them with bounded concurrency, one
 * attempt per webhook at a time (a slow or dead receiver holds up only its own deliveries), and records each attempt.
 * Nothing here runs in the operator, so no receiver ever slows a reconcile. Queued deliveries survive a restart
 * (they are rows, not timers); a shutdown aborts the attempts in flight and hands their rows back unattempted.
 */
import type { Kysely } from 'kysely';
import type { RetryPolicy } from '../core/backoff.ts';
import { describeError } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import type { OutboundPolicy } from '../net/outbound.ts';
import type { Sealer } from '../secrets/seal.ts';
import type { Tables } from '../store/database.ts';
import { type Delivery, DeliveryStore } from '../store/deliveries.ts';
import { WebhookStore, webhookSecretContext } from '../store/webhooks.ts';
import { outcomeOf, postDelivery } from './deliver.ts';

export interface DispatcherOptions {
  db: Kysely<Tables>;
  sealer: Sealer;
  outbound: OutboundPolicy;
  retry: RetryPolicy;
  logger: Logger;
  /** This replica's name in row claims. */
  holder: string;
  /** Longest sleep between looks at the queue (default 1 s). */
  pollMs?: number;
  /** Deliveries in flight at once (default 8). */
  concurrency?: number;
  /** Timeout of one attempt (default 10 s). */
  attemptTimeoutMs?: number;
}

export class DeliveryDispatcher {
  readonly #options: Required<DispatcherOptions>;
  readonly #deliveries: DeliveryStore;
  readonly #webhooks: WebhookStore;
  readonly #inFlight = new Set<Promise<void>>();
  /** Webhooks with an attempt in flight in this process. */
  readonly #busy = new Set<string>();
  readonly #shutdown = new AbortController();
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  constructor(options: DispatcherOptions) {
    this.#options = { pollMs: 1000, concurrency: 8, attemptTimeoutMs: 10_000, ...options };
    this.#deliveries = new DeliveryStore(options.db);
    this.#webhooks = new WebhookStore(options.db);
  }

  /** Starts taking deliveries from the queue. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Looks at the queue now (after this process queued something). */
  poke(): void {
    this.#wake?.();
  }

  /** Stops taking deliveries, aborts the attempts in flight and hands their deliveries back (not counted). */
  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    await this.#loop;
    this.#shutdown.abort();
    await Promise.all([...this.#inFlight]);
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let claimed: Delivery[] = [];
      try {
        const room = this.#options.concurrency - this.#inFlight.size;
        if (room > 0) {
          claimed = await this.#claim(room);
        }
      } catch (err) {
        this.#options.logger.warn({ err: describeError(err) }, 'webhook deliveries: cannot read the queue; retrying');
      }
      for (const d of claimed) {
        this.#busy.add(d.webhookId);
        const attempt = this.#attempt(d).finally(() => {
          this.#busy.delete(d.webhookId);
          this.#inFlight.delete(attempt);
          this.poke();
        });
        this.#inFlight.add(attempt);
      }
      if (claimed.length === 0 || this.#inFlight.size >= this.#options.concurrency) await this.#sleep();
    }
  }

  /**
   * Claims up to `room` due deliveries of webhooks not busy here, one per webhook (the oldest due); claims beyond
   * that are handed back at once.
   */
  async #claim(room: number): Promise<Delivery[]> {
    const rows = await this.#deliveries.claimDue(
      this.#options.holder,
      new Date(),
      this.#options.attemptTimeoutMs + 30_000,
      room,
      [...this.#busy],
    );
    const seen = new Set<string>();
    const take: Delivery[] = [];
    const giveBack: string[] = [];
    for (const d of rows) {
      if (seen.has(d.webhookId)) giveBack.push(d.id);
      else {
        seen.add(d.webhookId);
        take.push(d);
      }
    }
    await this.#deliveries.release(this.#options.holder, giveBack);
    return take;
  }

  /** Sleeps until poked or the poll period passed. */
  #sleep(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.#options.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  async #attempt(d: Delivery): Promise<void> {
    const log = this.#options.logger;
    try {
      const webhook = await this.#webhooks.byId(d.webhookId);
      if (!webhook) return;
      let secret: string | undefined;
      try {
        secret = this.#options.sealer.open(webhook.sealedSecret, webhookSecretContext(webhook.id));
      } catch {
        secret = undefined;
      }
      const result = await postDelivery(
        {
          url: webhook.url,
          secret,
          body: d.body,
          eventType: d.eventType,
          eventId: d.eventId,
          deliveryId: d.id,
        },
        this.#options.outbound,
        () => new Date(),
        this.#options.attemptTimeoutMs,
        this.#shutdown.signal,
      );
      if (this.#shutdown.signal.aborted) {
        await this.#deliveries.release(this.#options.holder, [d.id]);
        return;
      }
      const outcome = outcomeOf(result, d.attempts + 1, this.#options.retry, new Date());
      const recorded = await this.#deliveries.recordAttempt(d.id, this.#options.holder, outcome);
      const fields = {
        webhook: webhook.id,
        delivery: d.id,
        event: d.eventType,
        attempt: d.attempts + 1,
        status: result.responseCode,
        latencyMs: result.latencyMs,
        state: outcome.state,
      };
      if (!recorded) log.warn(fields, 'webhook delivery: claim lost before the attempt was recorded');
      else if (outcome.state === 'delivered') log.info(fields, 'webhook delivered');
      else log.warn({ ...fields, error: result.error, retryAt: outcome.attempt.retry_at }, 'webhook delivery failed');
    } catch (err) {
      log.warn({ delivery: d.id, err: describeError(err) }, 'webhook delivery: attempt not recorded; retried later');
    }
  }
}
