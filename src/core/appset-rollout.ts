/**
 * The rolling sync of an AppSet (issue 27 item 2, `spec.strategy.rollingSync`): which step each generated App is in,
 * where the rollout is, and which Apps to sync now. Pure and stateless: everything is read from the Apps' status as
 * last seen, so an operator that restarts (or a new leader) continues where the rollout is, and a Degraded App that a
 * new revision fixes lets the rollout go on without a reset. docs/appsets.md "Rolling sync".
 */

import type { AppResource } from './app-schema.ts';
import { isPending, operationLifecycle } from './app-state.ts';
import type { AppSetResource, RolloutStatus, RolloutStep, RolloutStepState } from './appset-schema.ts';

/** A percent (`25%`) or a count (`3`) as a string. */
const PERCENT = /^(\d{1,3})%$/;
const COUNT = /^\d{1,6}$/;

/** Problems of the steps' `maxUnavailable` values (the rest the schema checks), each naming its field. */
export function rolloutProblems(steps: readonly RolloutStep[]): string[] {
  const problems: string[] = [];
  for (const [i, step] of steps.entries()) {
    const v = step.maxUnavailable;
    if (v === undefined) continue;
    const where = `strategy.rollingSync.steps[${i}].maxUnavailable`;
    const percent = typeof v === 'string' ? PERCENT.exec(v) : null;
    const ok =
      (typeof v === 'number' && Number.isInteger(v) && v >= 1) ||
      (percent !== null && Number(percent[1]) >= 1 && Number(percent[1]) <= 100) ||
      (typeof v === 'string' && COUNT.test(v) && Number(v) >= 1);
    if (!ok) problems.push(`${where}: a count of at least 1 or a percent from 1% to 100% (got ${JSON.stringify(v)})`);
  }
  return problems;
}

/**
 * How many Apps of a step of `size` Apps may be unavailable at once: the count, or the percent of the step rounded
 * down, never less than 1; the whole step when absent (or malformed, which the write-time rules refuse).
 */
export function maxUnavailableOf(value: number | string | undefined, size: number): number {
  if (value === undefined) return Math.max(size, 1);
  if (typeof value === 'number') return Math.max(1, Math.floor(value));
  const percent = PERCENT.exec(value);
  if (percent) return Math.max(1, Math.floor((size * Number(percent[1])) / 100));
  return COUNT.test(value) ? Math.max(1, Number(value)) : Math.max(size, 1);
}

/** True when `labels` meet every expression of `step`. */
export function stepMatches(step: RolloutStep, labels: Record<string, string> | undefined): boolean {
  return step.matchExpressions.every((e) => {
    const value = labels?.[e.key];
    const inValues = value !== undefined && e.values.includes(value);
    return e.operator === 'In' ? inValues : !inValues;
  });
}

/** The Apps of each step (by name), in step order; Apps no step selects form one more step, last. */
export function groupBySteps(
  steps: readonly RolloutStep[],
  apps: readonly AppResource[],
): { apps: AppResource[]; unmatched: boolean }[] {
  const groups = steps.map(() => [] as AppResource[]);
  const rest: AppResource[] = [];
  const sorted = [...apps].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  for (const app of sorted) {
    const i = steps.findIndex((s) => stepMatches(s, app.metadata.labels));
    if (i >= 0) groups[i]?.push(app);
    else rest.push(app);
  }
  const out = groups.map((g) => ({ apps: g, unmatched: false }));
  if (rest.length > 0) out.push({ apps: rest, unmatched: true });
  return out;
}

const pending = (app: AppResource) => isPending(operationLifecycle(app));

/** Apps reading the same upstream (a Git repository's branch): they see its new revisions at their own polls. */
function upstreamOf(app: AppResource): string {
  const source = app.spec.source;
  if (source.type === 'Git' && source.git) return `git ${source.git.repoURL} ${source.git.branch ?? ''}`;
  return JSON.stringify(source);
}

/**
 * The revisions each upstream is seen at, over `apps`: more than one while some of its Apps have polled a new
 * revision and others not yet.
 */
export function upstreamRevisions(apps: readonly AppResource[]): Map<string, Set<string>> {
  const seen = new Map<string, Set<string>>();
  for (const app of apps) {
    const rev = app.status?.observedRevision;
    if (!rev) continue;
    const key = upstreamOf(app);
    seen.set(key, (seen.get(key) ?? new Set()).add(rev));
  }
  return seen;
}

/**
 * Synced and Healthy at the newest revision seen upstream, with no operation pending. `seen` (from
 * `upstreamRevisions` over the whole AppSet) guards against an App that has not polled yet: an App whose upstream
 * another App already sees at another revision is not rolled out, so a later step never syncs a revision an earlier
 * one has not even seen.
 */
export function rolledOut(app: AppResource, seen?: Map<string, Set<string>>): boolean {
  const s = app.status;
  if (s?.syncStatus !== 'Synced' || s.healthStatus !== 'Healthy' || pending(app)) return false;
  if (s.observedRevision && s.revision !== s.observedRevision) return false;
  const revisions = seen?.get(upstreamOf(app));
  return !revisions || revisions.size <= 1;
}

/** OutOfSync (a new revision or spec) with nothing pending: the rollout syncs it when its step's turn comes. */
export function awaitsSync(app: AppResource): boolean {
  return app.status?.syncStatus === 'OutOfSync' && !pending(app);
}

/**
 * Why `app` stops the rollout at its step, or undefined. A sync that failed at the revision the step rolls out (the
 * operation's revision is the newest the App has seen, nothing pending) stops it: asking again would fail again, and
 * a new revision (the fix) or a sync by hand that succeeds lets the rollout go on. A failure recorded without a
 * revision (the source could not be rendered) cannot be placed, and is asked again. Otherwise an App Degraded after
 * its sync (not while it still awaits one: the new revision may be the fix) stops it, as the App reports its health.
 */
export function stopReason(app: AppResource): string | undefined {
  const s = app.status;
  const op = s?.operationState;
  if (op?.phase === 'Failed' && op.revision && op.revision === s?.observedRevision && !pending(app)) {
    const why = op.message ?? op.reason;
    return why ? `SyncFailed: ${why}` : 'SyncFailed';
  }
  if (s?.healthStatus === 'Degraded' && !awaitsSync(app)) {
    return s.healthReason ? `Degraded: ${s.healthReason}` : 'Degraded';
  }
  return undefined;
}

/** What the rollout does now: its status, and the Apps to sync (by name). */
export interface RolloutPlan {
  status: RolloutStatus;
  sync: string[];
}

/**
 * Where the rollout of `apps` (the AppSet's generated Apps) across `steps` is, and what to sync now. Steps are taken
 * in order: a step whose every App is rolled out (Synced and Healthy at the newest revision) is Done; the first that
 * is not is the current one: an App there whose sync failed, or Degraded, stops the rollout (Stopped, later steps Pending, nothing synced);
 * otherwise its Apps awaiting a sync are synced, by name, so that at most `maxUnavailable` of its Apps are not
 * rolled out at once (Apps syncing or progressing count against it). Later steps stay Pending.
 */
export function planRollout(steps: readonly RolloutStep[], apps: readonly AppResource[]): RolloutPlan {
  const groups = groupBySteps(steps, apps);
  const seen = upstreamRevisions(apps);
  const states: RolloutStepState[] = [];
  let current = 0;
  let stopped: RolloutStatus['stopped'];
  let sync: string[] = [];
  for (const [i, group] of groups.entries()) {
    if (current > 0) {
      states.push('Pending');
      continue;
    }
    const bad = firstStop(group.apps);
    if (bad) {
      current = i + 1;
      stopped = { step: i + 1, ...bad };
      states.push('Stopped');
      continue;
    }
    if (group.apps.every((a) => rolledOut(a, seen))) {
      states.push('Done');
      continue;
    }
    current = i + 1;
    states.push('Progressing');
    sync = toSync(
      group.apps,
      maxUnavailableOf(group.unmatched ? undefined : steps[i]?.maxUnavailable, group.apps.length),
    );
  }
  const status: RolloutStatus = {
    currentStep: current,
    steps: groups.map((g, i) => ({
      step: i + 1,
      state: states[i] ?? 'Pending',
      apps: g.apps.map((a) => a.metadata.name),
      ...(g.unmatched ? { unmatched: true } : {}),
    })),
    ...(stopped ? { stopped } : {}),
  };
  return { status, sync };
}

/** The first App of a step that stops the rollout, with why. */
function firstStop(apps: readonly AppResource[]): { app: string; reason: string } | undefined {
  for (const app of apps) {
    const reason = stopReason(app);
    if (reason) return { app: app.metadata.name, reason };
  }
  return undefined;
}

/** The Apps of a step to sync now: those awaiting a sync, within what `limit` leaves after the unavailable ones. */
function toSync(apps: readonly AppResource[], limit: number): string[] {
  const unavailable = apps.filter((a) => !rolledOut(a) && !awaitsSync(a)).length;
  const room = Math.max(0, limit - unavailable);
  return apps
    .filter(awaitsSync)
    .slice(0, room)
    .map((a) => a.metadata.name);
}

/**
 * An AppSet whose template turns its Apps' automated sync off (the AppSet controller syncs them). A template without
 * a syncPolicy gets the one the App CRD defaults to, so the generated spec equals the stored App's.
 */
export function withoutAutomated(appSet: AppSetResource): AppSetResource {
  const template = appSet.spec.template;
  const defaults = { prune: false, selfHeal: false, requiresApproval: false };
  const syncPolicy = { ...defaults, ...template.spec.syncPolicy, automated: false };
  return { ...appSet, spec: { ...appSet.spec, template: { ...template, spec: { ...template.spec, syncPolicy } } } };
}
