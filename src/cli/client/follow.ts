/**
 * `--wait`: follows an operation until it ends (./outcome.ts, the one operation-outcome rule) or the deadline passes,
 * showing progress live. It follows the server's App event stream (`GET /apps/stream`, server-sent events): every
 * change of the App wakes one read of its status view, which the rule judges, and the App's new Kubernetes events are
 * shown as they appear. No polling: a quiet App costs nothing until it changes. A dropped stream is opened again
 * after a backoff (core/backoff.ts), and the status is read again once it is live, so nothing in between is missed.
 * The deadline holds whatever happens: it aborts the stream and any request in flight.
 */
import { createParser } from 'eventsource-parser';
import type { AppEvent } from '../../client/answers.ts';
import { type BackoffPolicy, backoffDelay } from '../../core/backoff.ts';
import { sleep } from '../../core/concurrency.ts';
import type { ApiClient } from './api.ts';
import { APP_PATH, type AppRef } from './app-ref.ts';
import { CliError, EXIT } from './errors.ts';
import { type Outcome, outcomeOf, type StatusView } from './outcome.ts';
import type { Progress } from './progress.ts';

/** Reconnects to the event stream after it dropped: 0.5 s doubling to 5 s. */
const RECONNECT: BackoffPolicy = { baseMs: 500, maxMs: 5_000, jitter: 0.2 };

/** The end of a followed operation: the last status view and the outcome. */
export type Followed = { view: StatusView; outcome: Extract<Outcome, { done: true }> };

/**
 * Follows operation `operationId` on `ref` until it ends, `timeoutMs` passes (CliError, exit 1) or `signal` aborts.
 * Answers the last status view and the outcome; the caller reports it.
 */
export async function followOperation(
  api: ApiClient,
  ref: AppRef,
  operationId: string,
  options: { timeoutMs: number; progress: Progress; signal?: AbortSignal },
): Promise<Followed> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const follower = new Follower(api, ref, operationId, options.progress, signal);
  try {
    return await follower.run();
  } catch (err) {
    if (deadline.aborted) {
      throw new CliError(
        `timed out after ${Math.round(options.timeoutMs / 1000)}s waiting for ${ref.name}`,
        EXIT.failed,
      );
    }
    throw err;
  }
}

/** One follow: the stream, the status reads it wakes, and the events shown so far. */
class Follower {
  readonly #api: ApiClient;
  readonly #ref: AppRef;
  readonly #operationId: string;
  readonly #progress: Progress;
  readonly #signal: AbortSignal;
  /** Event times have second precision: count the second the follow started in. */
  readonly #since = Math.floor(Date.now() / 1000) * 1000;
  readonly #seen = new Set<string>();
  #ended: Followed | undefined;
  /** A status read that failed for good (the App is gone, the key may no longer read it): ends the follow. */
  #failed: unknown;
  /** The status read under way, and whether the App changed again meanwhile (read once more after it). */
  #reading: Promise<void> | undefined;
  #again = false;

  constructor(api: ApiClient, ref: AppRef, operationId: string, progress: Progress, signal: AbortSignal) {
    this.#api = api;
    this.#ref = ref;
    this.#operationId = operationId;
    this.#progress = progress;
    this.#signal = signal;
  }

  /** Reads the status once, then follows the stream (reconnecting) until the operation ended or the signal aborts. */
  async run(): Promise<Followed> {
    await this.#check();
    for (let failures = 0; !this.#ended; ) {
      this.#signal.throwIfAborted();
      const live = await this.#follow().then(
        () => true,
        (err: unknown) => {
          if (this.#signal.aborted) throw err;
          if (err instanceof CliError && err.exitCode !== EXIT.failed) throw err;
          return false;
        },
      );
      if (this.#ended) break;
      failures = live ? 0 : failures + 1;
      await sleep(backoffDelay(failures, RECONNECT), this.#signal);
    }
    return this.#ended;
  }

  /** One connection of the stream: resolves when the operation ended or the server closed the stream. */
  async #follow(): Promise<void> {
    // One controller ends this connection: the follow's signal (the deadline, Ctrl-C) or the operation's end.
    const abort = new AbortController();
    const stop = () => abort.abort(this.#signal.reason);
    this.#signal.addEventListener('abort', stop, { once: true });
    try {
      await this.#read(abort);
    } finally {
      this.#signal.removeEventListener('abort', stop);
    }
  }

  /** Reads one connection of the stream until it ends, `abort` aborts it, or the operation ended. */
  async #read(abort: AbortController): Promise<void> {
    this.#signal.throwIfAborted();
    const { data: body } = await this.#api.raw.GET('/api/v1/apps/stream', {
      headers: { accept: 'text/event-stream' },
      parseAs: 'stream',
      signal: abort.signal,
    });
    const parser = createParser({
      onEvent: (message) => {
        // `ready`: live from here on (read once, for what changed before); `reset`: the stream could not resume.
        if (message.event === 'ready' || message.event === 'reset' || this.#concerns(message.data))
          this.#wake(() => abort.abort());
      },
    });
    if (!body) return;
    // The body is cancelled here when the connection is aborted: fetch's own abort of a response already received
    // does not always reach its body (undici holds the request's controller weakly; once it is collected, a quiet
    // stream never ended and `--wait` outlived its --timeout).
    const reader = body.getReader();
    const cancel = () => void reader.cancel().catch(() => undefined);
    abort.signal.addEventListener('abort', cancel, { once: true });
    const decoder = new TextDecoder();
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        parser.feed(decoder.decode(chunk.value, { stream: true }));
        if (this.#ended) return;
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    } finally {
      abort.signal.removeEventListener('abort', cancel);
      if (this.#ended) cancel();
    }
    await this.#reading;
    if (this.#failed) throw this.#failed;
  }

  /** True when an `app` event's data is about the followed App. */
  #concerns(data: string): boolean {
    try {
      const { app } = JSON.parse(data) as { app?: { name?: string; namespace?: string } };
      return app?.name === this.#ref.name && app.namespace === this.#ref.namespace;
    } catch {
      return false;
    }
  }

  /**
   * Reads the status (once at a time; a change meanwhile reads it once more); calls `ended` when the operation is
   * over or the read failed.
   */
  #wake(ended: () => void): void {
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = (async () => {
      do {
        this.#again = false;
        await this.#check();
      } while (this.#again && !this.#ended);
    })()
      .catch((err: unknown) => {
        this.#failed = err;
      })
      .finally(() => {
        this.#reading = undefined;
        if (this.#ended || this.#failed) ended();
      });
  }

  /** Reads the status view and the App's new events; records the end when the rule says so. */
  async #check(): Promise<void> {
    const params = { path: this.#ref };
    const view = (await this.#api.GET(`${APP_PATH}/status`, { params, signal: this.#signal })) as StatusView;
    for (const e of await this.#newEvents()) this.#progress.note(`${e.type} ${e.reason} ${e.object}: ${e.message}`);
    const outcome = outcomeOf(view, this.#operationId);
    if (outcome.done) this.#ended = { view, outcome };
    else this.#progress.state(`${this.#ref.name}: ${outcome.state}`);
  }

  /** The App's events since the follow started not shown yet, oldest first. */
  async #newEvents(): Promise<AppEvent[]> {
    const { events = [] } = await this.#api.GET(`${APP_PATH}/events`, {
      params: { path: this.#ref },
      signal: this.#signal,
    });
    return events
      .filter((e) => Date.parse(e.at ?? '') >= this.#since)
      .filter((e) => {
        const id = `${e.at}|${e.object}|${e.reason}|${e.message}`;
        if (this.#seen.has(id)) return false;
        this.#seen.add(id);
        return true;
      })
      .reverse();
  }
}
