/**
 * Best-effort delivery of caller-less audit entries over the internal channel: an entry is sent in the background,
 * retried a few times when the failure may pass (network, 5xx), and logged when it is finally lost. The action it
 * records has already happened; a failed audit never fails it.
 */
import type { Logger } from 'pino';
import { retryDelayMs } from '../../core/backoff.ts';
import { describeError, SvcError } from '../../core/errors.ts';
import type { ServerChannel, SystemAuditEntry } from '../../internal/channel.ts';

export interface AuditRelayOptions {
  /** Tries per entry (default 3). */
  attempts?: number;
  /** Delay before the first retry, doubled after each up to 30 s, with the shared jitter (default 1 s). */
  retryDelayMs?: number;
}

export class AuditRelay {
  readonly #channel: Pick<ServerChannel, 'recordAudit'>;
  readonly #logger: Logger;
  readonly #attempts: number;
  readonly #retryDelayMs: number;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(channel: Pick<ServerChannel, 'recordAudit'>, logger: Logger, options: AuditRelayOptions = {}) {
    this.#channel = channel;
    this.#logger = logger;
    this.#attempts = options.attempts ?? 3;
    this.#retryDelayMs = options.retryDelayMs ?? 1000;
  }

  /** Sends `entry` in the background; never throws. */
  record(entry: SystemAuditEntry): void {
    const delivery = this.#deliver(entry).finally(() => this.#inFlight.delete(delivery));
    this.#inFlight.add(delivery);
  }

  /** Resolves when every entry handed over so far was recorded or given up (for a clean shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.#inFlight]);
  }

  async #deliver(entry: SystemAuditEntry): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#channel.recordAudit(entry);
        return;
      } catch (err) {
        const retriable = !(err instanceof SvcError) || err.retry === 'retry';
        if (!retriable || attempt >= this.#attempts) {
          this.#logger.warn(
            { err: describeError(err), action: entry.action, app: entry.resourceName, namespace: entry.orgNamespace },
            'audit entry not recorded',
          );
          return;
        }
        const policy = { baseMs: this.#retryDelayMs, maxMs: 30_000, attempts: this.#attempts };
        await new Promise((r) => setTimeout(r, retryDelayMs(policy, attempt)));
      }
    }
  }
}
