/**
 * `--wait`: follows an operation until it ends (./outcome.ts) or the deadline passes, showing progress live. Each
 * round is a status `wait` (the server answers at once when the App is terminal, else after a few seconds), and the
 * App's new Kubernetes events are shown as they appear. The App's event stream, when the server offers one, would
 * save these rounds; the status wait works on every server.
 */
import type { AppEvent } from '../../client/answers.ts';
import type { ApiClient } from './api.ts';
import { APP_PATH, type AppRef } from './app-ref.ts';
import { CliError, EXIT } from './errors.ts';
import { type Outcome, outcomeOf, type StatusView } from './outcome.ts';
import type { Progress } from './progress.ts';

/** Longest single status wait: short, so the progress line follows the App between terminal states. */
const ROUND_MS = 3_000;
/** Shortest round: a status answered at once (an App terminal from before) is not asked again in a tight loop. */
const MIN_ROUND_MS = 1_000;

/** The events of `ref` at or after `since` not yet in `seen` (which learns them), oldest first. */
async function newEvents(api: ApiClient, ref: AppRef, since: number, seen: Set<string>): Promise<AppEvent[]> {
  const { events = [] } = await api.GET(`${APP_PATH}/events`, { params: { path: ref } });
  return events
    .filter((e) => Date.parse(e.at ?? '') >= since)
    .filter((e) => {
      const id = `${e.at}|${e.object}|${e.reason}|${e.message}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    })
    .reverse();
}

/**
 * Follows operation `operationId` on `ref` until it ends, `timeoutMs` passes (CliError, exit 1) or `signal` aborts.
 * Answers the last status view and the outcome; the caller reports it.
 */
export async function followOperation(
  api: ApiClient,
  ref: AppRef,
  operationId: string,
  options: { timeoutMs: number; progress: Progress; signal?: AbortSignal },
): Promise<{ view: StatusView; outcome: Extract<Outcome, { done: true }> }> {
  const started = Date.now();
  // Event times have second precision: count the second the operation was requested in.
  const since = Math.floor(started / 1000) * 1000;
  const seen = new Set<string>();
  const deadline = started + options.timeoutMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new CliError(
        `timed out after ${Math.round(options.timeoutMs / 1000)}s waiting for ${ref.name}`,
        EXIT.failed,
      );
    }
    const roundStart = Date.now();
    const wait = `${Math.max(1, Math.ceil(Math.min(remaining, ROUND_MS) / 1000))}s`;
    // The status view is read by outcome.ts's own StatusView until the operation-outcome rule moves to src/core.
    const view = (await api.GET(`${APP_PATH}/status`, {
      params: { path: ref, query: { wait } },
      ...(options.signal ? { signal: options.signal } : {}),
    })) as StatusView;
    for (const e of await newEvents(api, ref, since, seen)) {
      options.progress.note(`${e.type} ${e.reason} ${e.object}: ${e.message}`);
    }
    const outcome = outcomeOf(view, operationId);
    if (outcome.done) return { view, outcome };
    options.progress.state(`${ref.name}: ${outcome.state}`);
    const pause = MIN_ROUND_MS - (Date.now() - roundStart);
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
