/**
 * Runs a staged sync (src/engine/sync-plan.ts): PreSync hooks wave by wave; then the Sync waves, each applied with
 * its Sync hooks and waited for until its objects are healthy before the next one; then (after prune, which the
 * reconciler runs) PostSync hooks. A hook is created afresh (BeforeHookCreation deletes its previous run first) and
 * waited for until it completes (Healthy: a Job Complete, a Pod Succeeded) or fails (Degraded); its delete policy
 * then removes it. A failed hook, a Degraded wave or a wait past the deadline fails the sync with a StageError, and
 * the reconciler runs the SyncFail hooks (`runFailHooks`); so does a terminate request (reason Terminated). A hook
 * still running when its wait ends that way is stopped (deleted). A wait on a wave's health (not on a hook) also ends
 * when a newer revision arrived for an automated App (`superseded`, reason Superseded): the next reconcile syncs it,
 * and no SyncFail hook runs (the sync did not fail, a newer one replaces it). Waiting reads the destination's watch
 * cache, so a poll is a map lookup; every write passes the fence first.
 */
import type { AppResource, OperationResource } from '../../core/app-schema.ts';
import { sleep } from '../../core/concurrency.ts';
import { parseDuration } from '../../core/duration.ts';
import { describeError, SvcError } from '../../core/errors.ts';
import type { HealthResult } from '../../engine/health/assess.ts';
import { type LiveObject, resourceHealth } from '../../engine/health/index.ts';
import { describeHook, type Hook, type HookPhase, type SyncPlan, type Wave } from '../../engine/sync-plan.ts';
import { type AnyObject, type ObjectRef, objectRef } from '../../kube/index.ts';
import type { DestinationCache } from '../live/index.ts';
import { StageError } from '../stage-error.ts';
import { operationResource } from './op-resources.ts';

/** How often a wait reads the live cache again. */
const POLL_MS = 200;

/** How often a wait on health asks whether a newer revision superseded the sync (it may read upstream). */
const SUPERSEDE_CHECK_MS = 2_000;

/** An operation still running at its deadline (the status records reason DeadlineExceeded). */
export class DeadlineExceededError extends SvcError {
  override readonly code = 'deadline_exceeded';
  constructor(message: string) {
    super(message, { retry: 'wait' });
  }
}

/**
 * A sync of an automated App that was only waiting on health when a newer revision arrived (the status records
 * reason Superseded); retried at once, so the next reconcile syncs the newer revision.
 */
export class SupersededError extends SvcError {
  override readonly code = 'superseded';
  constructor(message: string) {
    super(message, { retry: 'retry' });
  }
}

/** An operation someone ended (`POST /apps/{ns}/{name}/terminate`; the status records reason Terminated). */
export class TerminatedError extends SvcError {
  override readonly code = 'terminated';
  constructor(message: string) {
    super(message, { retry: 'wait' });
  }
}

/** What a staged sync needs from the reconciler. */
export interface WaveContext {
  live: DestinationCache;
  /** Throws (FencedError) once this process may no longer write, or is stopping (waits then end: see ReconcilerDeps). */
  fence: () => void;
  /** Applies one wave's objects (and records them in the inventory); throws StageError on failure. */
  apply: (objects: AnyObject[]) => Promise<void>;
  /** The health of `objects` as live now, with the App's custom checks. */
  health: (objects: AnyObject[]) => Promise<HealthResult>;
  /** Records an Event on the App in the background, keeping this moment as its time (never throws). */
  event: (type: 'Normal' | 'Warning', reason: string, message: string) => void;
  /** Epoch ms after which a wait fails with DeadlineExceededError. */
  deadline: number;
  /** Human-readable length of the deadline, for messages. */
  timeout: string;
  /** True once someone asked to terminate the operation. */
  terminated: () => boolean;
  /** Records what the operation did to an object (operationState.resources once it ends; never throws). */
  record: (entry: OperationResource) => void;
  /**
   * What superseded the sync, when something did: a newer revision (or a newer sync request) for an automated App
   * whose sync follows the head; undefined otherwise. Asked only while waiting on a wave's health.
   */
  superseded: () => Promise<string | undefined>;
  /** Records the phase and wave now in progress on the running operation (operationState; best effort). */
  progress: (phase: HookPhase, wave: number) => Promise<void>;
}

/**
 * How long an App's operation may wait: its `spec.syncPolicy.operationTimeout` (a duration), else `defaultMs`; with
 * the human-readable length for messages.
 */
export function operationTimeoutOf(app: AppResource, defaultMs: number): { ms: number; label: string } {
  const own = app.spec.syncPolicy?.operationTimeout;
  const ms = (own ? parseDuration(own) : undefined) ?? defaultMs;
  return { ms, label: own ?? `${Math.round(ms / 1000)}s` };
}

const refOf = objectRef;

/**
 * Waits `POLL_MS`, failing with DeadlineExceededError once the deadline passed and with TerminatedError once the
 * operation was terminated; checks the fence. `waiting` says what for, in the error's message.
 */
export async function tick(ctx: WaveContext, waiting: string): Promise<void> {
  ctx.fence();
  if (ctx.terminated()) {
    throw new StageError('operation', new TerminatedError(`operation terminated by request ${waiting}`));
  }
  if (Date.now() >= ctx.deadline) {
    throw new StageError(
      'health',
      new DeadlineExceededError(`operation deadline (${ctx.timeout}) exceeded ${waiting}`),
    );
  }
  await sleep(POLL_MS);
}

/**
 * The Sync phase: each wave applied with its Sync hooks; every wave but the last (or the last too, when PostSync
 * hooks follow) waited for until its objects are healthy. Answers one line per wave for the operation's message.
 */
export async function runSyncWaves(ctx: WaveContext, plan: SyncPlan): Promise<string[]> {
  const waves = plan.phases.Sync;
  const waitLast = plan.phases.PostSync.length > 0;
  const lines: string[] = [];
  for (const [i, wave] of waves.entries()) {
    await ctx.progress('Sync', wave.wave);
    if (wave.objects.length > 0) await ctx.apply(wave.objects);
    await runHooks(ctx, wave.hooks);
    if (i < waves.length - 1 || waitLast) await waitHealthy(ctx, wave);
    const what = [...wave.objects.map((o) => `${o.kind} ${o.metadata.name}`), ...wave.hooks.map(describeHook)];
    lines.push(`wave ${wave.wave}: ${what.join(', ')}`);
    if (waves.length > 1) ctx.event('Normal', 'WaveSynced', `wave ${wave.wave}: ${what.join(', ')}`);
  }
  return lines;
}

/** Runs the hooks of one phase, wave by wave; throws StageError('hook') when one fails. */
export async function runPhase(ctx: WaveContext, waves: readonly Wave[]): Promise<void> {
  for (const wave of waves) {
    const phase = wave.hooks[0]?.phase;
    // SyncFail and PostDelete hooks run after the operation (or without one): no progress to show.
    if (phase && phase !== 'SyncFail' && phase !== 'PostDelete') await ctx.progress(phase, wave.wave);
    await runHooks(ctx, wave.hooks);
  }
}

/** How long SyncFail hooks may take at least, even when the sync failed because its deadline passed. */
const FAIL_HOOKS_GRACE_MS = 60_000;

/**
 * The SyncFail hooks, after a failed sync: their own failure is recorded as an Event, never thrown. They get at least
 * FAIL_HOOKS_GRACE_MS, even after a sync that failed at its deadline.
 */
export async function runFailHooks(ctx: WaveContext, plan: SyncPlan): Promise<void> {
  if (plan.phases.SyncFail.length === 0) return;
  const grace = {
    ...ctx,
    deadline: Math.max(ctx.deadline, Date.now() + FAIL_HOOKS_GRACE_MS),
    terminated: () => false,
  };
  try {
    await runPhase(grace, plan.phases.SyncFail);
  } catch (err) {
    if (!(err instanceof StageError)) throw err;
    ctx.event('Warning', 'HookFailed', `SyncFail hooks: ${err.message}`);
  }
}

/** Waits until the objects of `wave` are healthy; Degraded fails the sync, a newer revision supersedes it. */
async function waitHealthy(ctx: WaveContext, wave: Wave): Promise<void> {
  if (wave.objects.length === 0) return;
  let asked = Date.now();
  for (;;) {
    const h = await ctx.health(wave.objects);
    if (h.status === 'Healthy') return;
    if (h.status === 'Degraded') {
      throw new StageError('health', new Error(`wave ${wave.wave} is Degraded: ${h.reason}`), 'wait');
    }
    const waiting = `waiting for wave ${wave.wave} to be healthy (${h.status}: ${h.reason})`;
    if (Date.now() - asked >= SUPERSEDE_CHECK_MS) {
      asked = Date.now();
      const by = await ctx.superseded();
      if (by) throw new StageError('operation', new SupersededError(`superseded by ${by} ${waiting}`));
    }
    await tick(ctx, waiting);
  }
}

/** Runs one wave's hooks at once; throws StageError('hook') naming every one that failed. */
async function runHooks(ctx: WaveContext, hooks: readonly Hook[]): Promise<void> {
  if (hooks.length === 0) return;
  const results = await Promise.allSettled(hooks.map((h) => runHook(ctx, h)));
  const failed: string[] = [];
  for (const r of results) {
    if (r.status === 'rejected') {
      // The fence and a deadline end the sync as they are; every other failure is the hook's.
      if (!(r.reason instanceof StageError) || r.reason.stage !== 'hook') throw r.reason;
      failed.push(r.reason.message);
    }
  }
  if (failed.length > 0) throw new StageError('hook', new Error(failed.join('; ')), 'wait');
}

/** Creates one hook, waits for its end, applies its delete policy; throws StageError('hook') when it failed. */
async function runHook(ctx: WaveContext, hook: Hook): Promise<void> {
  const ref = refOf(hook.object);
  const what = describeHook(hook);
  if (hook.deletePolicies.includes('BeforeHookCreation')) await deleteAndWait(ctx, ref, what);
  ctx.fence();
  try {
    ctx.live.remember([await ctx.live.client.apply(hook.object)]);
  } catch (err) {
    throw new StageError('hook', new Error(`${what}: cannot be created: ${describeError(err)}`));
  }
  const failure = await outcomeOf(ctx, ref, what).catch(async (err: unknown) => stopped(ctx, hook, what, err));
  const policy = failure === undefined ? 'HookSucceeded' : 'HookFailed';
  if (hook.deletePolicies.includes(policy)) {
    ctx.fence();
    await ctx.live.client.delete(ref);
  }
  if (failure === undefined) {
    ctx.event('Normal', 'HookSucceeded', `${what} succeeded`);
    recordHook(ctx, hook, 'HookSucceeded');
    return;
  }
  ctx.event('Warning', 'HookFailed', `${what} failed: ${failure}`);
  recordHook(ctx, hook, 'HookFailed', failure);
  throw new StageError('hook', new Error(`${what} failed: ${failure}`), 'wait');
}

/**
 * The wait for a hook ended without its outcome (the deadline passed, the operation was terminated): the running hook
 * is stopped (deleted: a Job's Pods go with it) and the error goes on. Not when this process may no longer write.
 */
async function stopped(ctx: WaveContext, hook: Hook, what: string, err: unknown): Promise<never> {
  if (err instanceof StageError) {
    ctx.fence();
    await ctx.live.client.delete(refOf(hook.object)).catch(() => false);
    ctx.event('Warning', 'HookStopped', `${what} stopped: ${err.message}`);
    recordHook(ctx, hook, 'HookStopped', err.message);
  }
  throw err;
}

/** Records how a hook of a sync ended (a PostDelete hook belongs to no operation). */
function recordHook(ctx: WaveContext, hook: Hook, result: OperationResource['result'], message?: string): void {
  if (hook.phase === 'PostDelete') return;
  ctx.record(operationResource(refOf(hook.object), result, { syncPhase: hook.phase, wave: hook.wave }, message));
}

/** Waits until the hook ended: undefined when it succeeded (Healthy), else why it failed (Degraded). */
async function outcomeOf(ctx: WaveContext, ref: ObjectRef, what: string): Promise<string | undefined> {
  for (;;) {
    const h = resourceHealth(ref, (await ctx.live.get(ref)) as LiveObject | undefined);
    if (h.status === 'Healthy') return undefined;
    if (h.status === 'Degraded') return h.message ?? 'Degraded';
    await tick(ctx, `waiting for ${what} (${h.message ?? h.status})`);
  }
}

/** Deletes the hook's previous run, if any, and waits until it is gone (a new one of the same name can be created). */
async function deleteAndWait(ctx: WaveContext, ref: ObjectRef, what: string): Promise<void> {
  ctx.fence();
  if (!(await ctx.live.client.get(ref))) return;
  await ctx.live.client.delete(ref);
  while (await ctx.live.client.get(ref)) await tick(ctx, `waiting for the previous ${what} to be deleted`);
}
