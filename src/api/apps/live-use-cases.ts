/**
 * The use-cases that read an App's destination on the caller's behalf (`deployment:read` on the App): the diff of
 * what a sync would change, the live resource tree, and the logs of one of its Pods.
 */
import { useCase } from '../use-case.ts';
import { appScope, locateApp } from './access.ts';
import { liveReadsOf } from './live-reads.ts';
import type { LogQuery } from './resource-service.ts';
import type { AppRef } from './scope.ts';

/** What the diff is asked: the App, and a ref to preview instead of the observed head. */
export type DiffInput = AppRef & { revision?: string | undefined };

/** What a sync would change, or what a sync of `revision` would change (apps/diff-service.ts). */
export const diffApp = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: (ctx, input: DiffInput) => locateApp(ctx, input),
  act: (ctx, input, app) => liveReadsOf(ctx.services).diffs.diff(ctx.actor.org.id, app, input.revision),
});

/** The live resource tree. */
export const appTree = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: locateApp,
  act: (ctx, _ref: AppRef, app) => liveReadsOf(ctx.services).resources.tree(ctx.actor.org.id, app),
});

/** What a log read is asked: the App, which Pod and lines, and the signal of a caller that hangs up. */
export type LogsInput = AppRef & { query: LogQuery; signal: AbortSignal };

/** The log of one of the App's Pods, as a stream. */
export const appLogs = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: (ctx, input: LogsInput) => locateApp(ctx, input),
  act: (ctx, input, app) => liveReadsOf(ctx.services).resources.logs(ctx.actor.org.id, app, input.query, input.signal),
});
