/**
 * Delivery windows (docs/operator.md "Delivery windows", issue 30): when syncs may run. A window opens at each time
 * its cron `schedule` fires, read in its IANA `timeZone`, and stays open for `duration`. The rule is Argo CD's
 * sync-window rule: when any allow window applies, a sync runs only while one of them is open; a deny window that is
 * open always wins. Windows come from the App (spec.syncPolicy.windows), its destination cluster and its org; all
 * of them apply together. Pure: every answer takes `now`, so tests set the clock instead of waiting.
 */
import { Cron } from 'croner';
import { parseDuration } from './duration.ts';

/** Longest window: a week (a schedule fires at least yearly, but a window longer than its period never closes). */
export const MAX_WINDOW_MS = 7 * 24 * 3_600_000;

/** A delivery window as stored on an App, a cluster or the org. */
export interface DeliveryWindow {
  name: string;
  kind: 'allow' | 'deny';
  schedule: string;
  duration: string;
  timeZone?: string;
}

/** Where a window is defined. */
export type WindowSource = 'app' | 'cluster' | 'org';

/** A window with where it comes from. */
export interface SourcedWindow extends DeliveryWindow {
  source: WindowSource;
}

/** Whether syncs may run now, and if not, which window blocks them and when that may change. */
export type WindowVerdict =
  | { open: true; active: SourcedWindow[] }
  | {
      open: false;
      /** The window that blocks: the open deny window, or (no allow window open) the allow window opening first. */
      window: SourcedWindow;
      /** `deny`: inside a deny window; `outside-allow`: no allow window is open. */
      reason: 'deny' | 'outside-allow';
      /** Text naming the window, for a held sync's message and a refusal. */
      message: string;
      /** When the verdict may change next (the deny window closes, or an allow window opens); null if never. */
      changesAt: Date | null;
    };

/** The cron schedule of `w`, read in its time zone. Throws Error with the reason when it cannot be read. */
function cronOf(w: DeliveryWindow): Cron {
  const fields = w.schedule.trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`schedule "${w.schedule}" must have five fields`);
  return new Cron(w.schedule, { timezone: w.timeZone ?? 'UTC', paused: true });
}

/** The duration of `w` in ms. Throws when unreadable or out of bounds. */
function durationOf(w: DeliveryWindow): number {
  const ms = parseDuration(w.duration);
  if (ms === undefined || ms <= 0 || ms > MAX_WINDOW_MS) {
    throw new Error(`duration "${w.duration}" must be between 1m and 168h`);
  }
  return ms;
}

/** The problems of a list of windows, each naming the window ([] when all can be evaluated). */
export function windowProblems(windows: readonly DeliveryWindow[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, w] of windows.entries()) {
    const label = `window ${i} (${w.name})`;
    if (seen.has(w.name)) problems.push(`${label}: the name is used twice`);
    seen.add(w.name);
    if (w.timeZone !== undefined && !validTimeZone(w.timeZone)) {
      problems.push(`${label}: unknown time zone "${w.timeZone}"`);
      continue;
    }
    for (const check of [cronOf, durationOf]) {
      try {
        check(w);
      } catch (err) {
        problems.push(`${label}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  return problems;
}

/** True when `tz` is an IANA time zone this runtime knows. */
export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * When the opening of `w` that covers `now` closes, or null when `w` is not open at `now`. The window is open when an
 * opening falls in (now − duration, now]: the first opening after now − duration is at most now.
 */
export function closesAt(w: DeliveryWindow, now: Date): Date | null {
  const ms = durationOf(w);
  const start = cronOf(w).nextRun(new Date(now.getTime() - ms));
  if (!start || start.getTime() > now.getTime()) return null;
  // Openings closer together than the duration overlap: this answers the first one's end, and the caller looks
  // again then (a requeue), when the next one is found open.
  const end = start.getTime() + ms;
  return new Date(end);
}

/** The next opening of `w` after `now` (null when the schedule never fires again). */
export function opensAt(w: DeliveryWindow, now: Date): Date | null {
  return cronOf(w).nextRun(now);
}

/** How a window is named in messages: `allow window "business-hours" (org, 0 9 * * 1-5 for 8h Europe/Berlin)`. */
export function describeWindow(w: SourcedWindow): string {
  return `${w.kind} window "${w.name}" (${w.source}: ${w.schedule} for ${w.duration}, ${w.timeZone ?? 'UTC'})`;
}

/** The earlier of two dates, either possibly null. */
function earliest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() <= b.getTime() ? a : b;
}

/**
 * Whether syncs may run at `now` under `windows` (see the module comment). Windows that cannot be evaluated are
 * skipped (the API refuses them before they are stored).
 */
export function evaluateWindows(windows: readonly SourcedWindow[], now: Date): WindowVerdict {
  const usable = windows.filter((w) => windowProblems([w]).length === 0);
  const deny = usable.filter((w) => w.kind === 'deny');
  for (const w of deny) {
    const end = closesAt(w, now);
    if (end) {
      return { open: false, window: w, reason: 'deny', message: `inside ${describeWindow(w)}`, changesAt: end };
    }
  }
  const allow = usable.filter((w) => w.kind === 'allow');
  const active = allow.filter((w) => closesAt(w, now) !== null);
  if (allow.length === 0 || active.length > 0) return { open: true, active };
  let first: SourcedWindow = allow[0] as SourcedWindow;
  let at: Date | null = null;
  for (const w of allow) {
    const next = opensAt(w, now);
    if (next && (!at || next.getTime() < at.getTime())) {
      first = w;
      at = next;
    }
  }
  const when = at ? `; opens at ${at.toISOString()}` : '';
  return {
    open: false,
    window: first,
    reason: 'outside-allow',
    message: `outside every allow window; next is ${describeWindow(first)}${when}`,
    changesAt: earliest(at, null),
  };
}

/** The windows of an App, its cluster and its org, each marked with where it comes from. */
export function sourcedWindows(parts: {
  app?: readonly DeliveryWindow[];
  cluster?: readonly DeliveryWindow[];
  org?: readonly DeliveryWindow[];
}): SourcedWindow[] {
  const mark = (ws: readonly DeliveryWindow[] | undefined, source: WindowSource) =>
    (ws ?? []).map((w) => ({ ...w, source }));
  return [...mark(parts.app, 'app'), ...mark(parts.cluster, 'cluster'), ...mark(parts.org, 'org')];
}

/** `operationState.message` prefix of a sync held by a delivery window. */
export const WINDOW_MESSAGE_PREFIX = 'held: delivery window: ';

/** The `operationState.message` of a sync held by `verdict`. */
export function windowHoldMessage(verdict: Extract<WindowVerdict, { open: false }>): string {
  return `${WINDOW_MESSAGE_PREFIX}${verdict.message}`;
}
