/**
 * Sends an App's notifications in the background (docs/notifications.md "Delivery"): the reconcile hands them over
 * and goes on, so a slow or dead receiver never slows reconciling. Each POST goes through the outbound policy (src/net:
 * SVC_OUTBOUND_SCOPE, the same guard as the server's calls), follows no redirect, times out after 5 s, and is tried
 * up to 3 times with exponential backoff and jitter. Every attempt is logged (channel, event, status, latency; never
 * the URL, which is often a secret); a notification given up is also recorded as a `NotificationFailed` Warning
 * event on the App. Held in memory: an operator restart drops what was still queued.
 */
import type { Logger } from 'pino';
import type { AppResource } from '../core/app-schema.ts';
import { type RetryPolicy, retryDelayMs } from '../core/backoff.ts';
import { BackgroundQueue } from '../core/concurrency.ts';
import { describeNetworkFailure } from '../net/errors.ts';
import { type OutboundPolicy, outboundFetch } from '../net/outbound.ts';
import { bodyFor, type Channel, type NotificationPayload } from './notify.ts';

/** Attempts and backoff of one notification. */
export const NOTIFY_RETRY: RetryPolicy = { baseMs: 1000, maxMs: 10_000, attempts: 3 };
/** Notifications sent at once; more wait in the queue. */
const CONCURRENCY = 4;
/** Notifications kept waiting at most; beyond it the oldest is dropped (and logged). */
const QUEUE_MAX = 1000;

export interface NotifierOptions {
  outbound: OutboundPolicy;
  logger: Logger;
  /** Called when a notification is given up (records the Warning event). */
  onGiveUp: (app: AppResource, message: string) => Promise<void>;
  retry?: RetryPolicy;
  timeoutMs?: number;
}

interface Job {
  app: AppResource;
  channel: Channel;
  payload: NotificationPayload;
}

export class Notifier {
  readonly #options: NotifierOptions;
  readonly #queue: BackgroundQueue<Job>;

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.#queue = new BackgroundQueue<Job>({
      concurrency: CONCURRENCY,
      max: QUEUE_MAX,
      run: (job) => this.#deliver(job),
      onDrop: (job) =>
        options.logger.warn(
          { app: job.app.metadata.name, channel: job.channel.kind, event: job.payload.event },
          'notification dropped: too many waiting',
        ),
      // #deliver handles its own failures; this only guards against a bug there.
      onError: (job, err) =>
        options.logger.error({ app: job.app.metadata.name, err: String(err) }, 'notification delivery threw'),
    });
  }

  /** Queues one notification; returns at once. */
  send(app: AppResource, channel: Channel, payload: NotificationPayload): void {
    this.#queue.push({ app, channel, payload });
  }

  /** Resolves once everything queued so far was sent or given up (for a clean shutdown and tests). */
  drain(): Promise<void> {
    return this.#queue.drain();
  }

  async #deliver(job: Job): Promise<void> {
    const retry = this.#options.retry ?? NOTIFY_RETRY;
    const fields = {
      app: { namespace: job.app.metadata.namespace, name: job.app.metadata.name },
      channel: job.channel.kind,
      event: job.payload.event,
    };
    let error = '';
    for (let attempt = 1; attempt <= retry.attempts; attempt++) {
      const started = performance.now();
      error = await this.#post(job);
      const latencyMs = Math.round(performance.now() - started);
      if (!error) {
        this.#options.logger.info({ ...fields, attempt, latencyMs }, 'notification delivered');
        return;
      }
      this.#options.logger.warn({ ...fields, attempt, latencyMs, error }, 'notification attempt failed');
      if (attempt < retry.attempts) await new Promise((r) => setTimeout(r, retryDelayMs(retry, attempt)));
    }
    await this.#options
      .onGiveUp(
        job.app,
        `${job.channel.kind} notification ${job.payload.event} failed after ${retry.attempts} attempts: ${error}`,
      )
      .catch(() => undefined);
  }

  /** One POST; '' when the receiver answered 2xx, else what went wrong (without the URL). */
  async #post(job: Job): Promise<string> {
    try {
      const res = await outboundFetch(
        job.channel.url,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'User-Agent': 'svc-operator' },
          body: JSON.stringify(bodyFor(job.channel.kind, job.payload)),
        },
        this.#options.outbound,
        { timeoutMs: this.#options.timeoutMs ?? 5000, maxRedirects: 0 },
      );
      await res.body?.cancel().catch(() => undefined);
      return res.status >= 200 && res.status < 300 ? '' : `answered ${res.status}`;
    } catch (err) {
      let host = 'receiver';
      try {
        host = new URL(job.channel.url).host;
      } catch {
        // An invalid URL is described by the policy's own refusal.
      }
      return describeNetworkFailure(host, err);
    }
  }
}
