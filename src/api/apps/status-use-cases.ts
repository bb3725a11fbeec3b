/**
 * The read use-cases that follow what the operator records (contract §4.2 rules 3–4): status, optionally waiting
 * for a terminal state of the App state module; events of the App and its workloads; the applied-revision history.
 * All need `deployment:read` on the App.
 */
import { APP_KIND, type AppResource } from '../../core/app-schema.ts';
import { isWaitTerminal } from '../../core/app-state.ts';
import { parseDuration } from '../../core/duration.ts';
import { describeError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { eventTime, type KubeEvent, listEvents } from '../../kube/index.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';
import { appScope, kubeOf, locateApp } from './access.ts';
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

/** The App's applied revisions, newest first; for image Apps also the tag and image each digest came from. */
export const appHistory = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: locateApp,
  act: async (_ctx, _ref: AppRef, app) => ({
    name: app.metadata.name,
    revision: app.status?.revision ?? '',
    previous_revisions: app.status?.previousRevisions ?? [],
    last_sync_at: app.status?.lastSyncAt ?? null,
    revision_tags: app.status?.revisionTags ?? [],
  }),
});
