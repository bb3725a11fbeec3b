/**
 * The read use-cases that follow what the operator records (contract §4.2 rules 3–4): status, optionally waiting
 * for a terminal state of the App state module; events of the App and its workloads; the applied-revision history.
 * All need `deployment:read` on the App.
 */
import { APP_KIND, type AppResource } from '../../core/app-schema.ts';
import { isWaitTerminal } from '../../core/app-state.ts';
import { sleep } from '../../core/concurrency.ts';
import { parseDuration } from '../../core/duration.ts';
import { describeError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import type { RevisionDetails } from '../../engine/sources/types.ts';
import { eventTime, type KubeEvent, listEvents } from '../../kube/index.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';
import { appScope, kubeOf, locateApp } from './access.ts';
import { liveReadsOf } from './live-reads.ts';
import type { AppRef } from './scope.ts';

/** Longest status wait (contract §8). */
export const STATUS_WAIT_MAX_MS = 120_000;

/** A `wait` duration (`30s`, `2m`; the document's pattern) as milliseconds, capped at 120 s; 0 without one. */
export function waitMsOf(wait: string | undefined): number {
  if (wait === undefined || wait === '') return 0;
  return Math.min(parseDuration(wait) ?? 0, STATUS_WAIT_MAX_MS);
}

/** Most events returned (contract §8). */
export const EVENTS_MAX = 50;

/** One row of the events view (contract §4.2 rule 4). */
export interface AppEvent {
  at: string;
  type: string;
  object: string;
  reason: string;
  message: string;
  source: 'app' | 'workload';
}

function eventRow(e: KubeEvent, source: AppEvent['source']): AppEvent {
  return {
    at: eventTime(e),
    type: e.type ?? 'Normal',
    object: `${e.involvedObject.kind ?? ''}/${e.involvedObject.name ?? ''}`,
    reason: e.reason ?? '',
    message: e.message ?? '',
    source,
  };
}

/** What a status read is asked: the App, how long to wait, and the signal of a caller that hangs up. */
export type StatusInput = AppRef & { waitMs: number; signal: AbortSignal };

/**
 * The App, once it is terminal (`isWaitTerminal`), or as it is when `waitMs` passed or `signal` aborted; at once
 * with `waitMs` 0. The App is followed through the API's App cache (no watch per request), not polled.
 */
export const appStatus = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: (ctx, input: StatusInput) => locateApp(ctx, input),
  act: async (ctx, input, app): Promise<AppResource> => {
    if (input.waitMs === 0 || isWaitTerminal(app)) return app;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), input.waitMs);
    const onAbort = () => controller.abort();
    input.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const ns = orgNamespace(ctx.actor.org.slug);
      const last = await kubeOf(ctx.services).watchUntil(ns, app.metadata.name, isWaitTerminal, controller.signal);
      return last ?? app;
    } finally {
      clearTimeout(timer);
      input.signal.removeEventListener('abort', onAbort);
    }
  },
});

/**
 * Events of the App's workloads, read where they run: the management cluster, or the registered cluster of its
 * destination. A remote cluster that cannot be read leaves its events out (the App's own still answer); a
 * cluster no longer registered contributes none.
 */
async function workloadEvents(ctx: UseCaseContext, app: AppResource, filter: (e: KubeEvent) => boolean) {
  const { cluster = '', namespace } = app.spec.destination;
  if (cluster === '') return kubeOf(ctx.services).events(namespace, filter);
  try {
    const { client } = await ctx.services.clusters.connectionOf(ctx.actor.org.id, cluster);
    return (await listEvents(client, namespace)).filter(filter);
  } catch (err) {
    ctx.services.logger.warn({ cluster, err: describeError(err) }, 'events of a remote destination could not be read');
    return [];
  }
}

/**
 * Events about the App (org namespace) and its workloads (destination namespace: objects named in
 * `status.resources` or extending those names), newest first, at most EVENTS_MAX.
 */
export const appEvents = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, _ref: AppRef, app): Promise<AppEvent[]> => {
    const name = app.metadata.name;
    const ofApp = await kubeOf(ctx.services).events(
      orgNamespace(ctx.actor.org.slug),
      (e) => e.involvedObject.kind === APP_KIND && e.involvedObject.name === name,
    );
    const names = (app.status?.resources ?? []).map((r) => r.name);
    const ofWorkloads = (e: KubeEvent) => {
      const involved = e.involvedObject.name ?? '';
      return names.some((n) => involved === n || involved.startsWith(`${n}-`));
    };
    const workloads = names.length > 0 ? await workloadEvents(ctx, app, ofWorkloads) : [];
    return [...ofApp.map((e) => eventRow(e, 'app')), ...workloads.map((e) => eventRow(e, 'workload'))]
      .sort((a, b) => b.at.localeCompare(a.at))
      .slice(0, EVENTS_MAX);
  },
});

/** How long the history waits for its revisions' details (a first fetch of the repository) before answering without. */
export const HISTORY_DETAILS_WAIT_MS = 10_000;

/** One applied revision with what its source says of it (commit subject, author and date; an image's tag). */
export type HistoryRevision = { revision: string } & RevisionDetails;

/**
 * Each applied revision (current first) with what the App's source driver knows of it, through the server's
 * DesiredState (its repository cache, never a second git client). A source that cannot be read within
 * HISTORY_DETAILS_WAIT_MS leaves the details out: the history is still answered, with bare revisions.
 */
async function historyRevisions(ctx: UseCaseContext, app: AppResource): Promise<HistoryRevision[]> {
  const current = app.status?.revision;
  const revisions = [...new Set([...(current ? [current] : []), ...(app.status?.previousRevisions ?? [])])];
  if (revisions.length === 0) return [];
  let details = new Map<string, RevisionDetails>();
  try {
    const desired = await liveReadsOf(ctx.services).desired();
    const read = desired.describe(app, revisions);
    read.catch(() => undefined); // raced below: a late failure after the wait ended is nobody's to handle
    const stop = new AbortController();
    const waited = sleep(HISTORY_DETAILS_WAIT_MS, stop.signal).then(() => undefined);
    const first = await Promise.race([read, waited]).finally(() => stop.abort());
    if (!first) throw new Error(`not read within ${HISTORY_DETAILS_WAIT_MS / 1000} s`);
    details = first;
  } catch (err) {
    // Only the error's kind: a git error's message carries the repository URL, which may carry a password.
    const kind = err instanceof Error ? err.name : typeof err;
    ctx.services.logger.debug({ app: app.metadata.name, kind }, 'history without revision details');
  }
  return revisions.map((revision) => ({ revision, ...details.get(revision) }));
}

/**
 * The App's applied revisions, newest first; for image Apps also the tag and image each digest came from; each
 * revision with its commit subject, author and date (Git) or tag (image).
 */
export const appHistory = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, _ref: AppRef, app) => ({
    name: app.metadata.name,
    revision: app.status?.revision ?? '',
    previous_revisions: app.status?.previousRevisions ?? [],
    last_sync_at: app.status?.lastSyncAt ?? null,
    revision_tags: app.status?.revisionTags ?? [],
    revisions: await historyRevisions(ctx, app),
  }),
});
