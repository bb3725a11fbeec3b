/**
 * The delivery-window use-cases (docs/operator.md "Delivery windows"): read and set the org's windows
 * (`deployment:read` / `org:manage` at org scope; audited `org.delivery_windows`) and a cluster's (`cluster:read` /
 * `cluster:manage` at its scope; audited `cluster.delivery_windows`); whether an App's windows let a sync run now;
 * and the check a manual sync passes (refused while a window blocks, unless a `deployment:manage` caller overrides
 * once).
 */
import type { AppResource } from '../../core/app-schema.ts';
import { ConflictError, NotFoundError, UnprocessableError } from '../../core/errors.ts';
import {
  type DeliveryWindow,
  evaluateWindows,
  type SourcedWindow,
  sourcedWindows,
  type WindowVerdict,
  windowProblems,
} from '../../core/windows.ts';
import { ClusterStore } from '../../store/clusters.ts';
import { orgWindows, putOrgWindows } from '../../store/org-policies.ts';
import { appScope, locateApp } from '../apps/access.ts';
import type { AppRef } from '../apps/scope.ts';
import { clusterScope, locateCluster } from '../clusters/use-cases.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';

interface Windows {
  windows: DeliveryWindow[];
}

/** 422 naming every window that cannot be evaluated. */
export function checkWindows(windows: readonly DeliveryWindow[]): void {
  const problems = windowProblems(windows);
  if (problems.length > 0) throw new UnprocessableError(`invalid delivery windows: ${problems.join('; ')}`);
}

/** The org's delivery windows. */
export const getOrgWindows = useCase({
  permission: 'deployment:read',
  where: 'org',
  act: async (ctx, _input: undefined): Promise<Windows> => ({
    windows: await orgWindows(ctx.services.store.db, ctx.actor.org.id),
  }),
});

/** Sets the org's delivery windows; audited `org.delivery_windows`. */
export const setOrgWindows = useCase({
  permission: 'org:manage',
  where: 'org',
  act: (ctx, input: Windows): Promise<Windows> => {
    checkWindows(input.windows);
    return ctx.write(async (tx) => {
      await putOrgWindows(tx.db, ctx.actor.org.id, input.windows);
      await tx.record({
        action: 'org.delivery_windows',
        resourceType: 'org',
        resourceId: ctx.actor.org.id,
        resourceName: ctx.actor.org.slug,
        details: { windows: input.windows },
      });
      return { windows: input.windows };
    });
  },
});

/** A cluster's delivery windows. */
export const getClusterWindows = useCase({
  permission: 'cluster:read',
  where: { input: (input: { name: string }) => clusterScope(input.name) },
  locate: (ctx, input) => locateCluster(ctx, input.name),
  act: async (_ctx, _input, record): Promise<Windows> => ({ windows: record.windows }),
});

/** Sets a cluster's delivery windows; audited `cluster.delivery_windows`. */
export const setClusterWindows = useCase({
  permission: 'cluster:manage',
  where: { input: (input: { name: string } & Windows) => clusterScope(input.name) },
  locate: (ctx, input) => locateCluster(ctx, input.name),
  act: (ctx, input, record): Promise<Windows> => {
    checkWindows(input.windows);
    return ctx.write(async (tx) => {
      if (!(await tx.clusters.setWindows(ctx.actor.org.id, input.name, input.windows))) {
        throw new NotFoundError(`cluster "${input.name}" not found`);
      }
      await tx.record({
        action: 'cluster.delivery_windows',
        resourceType: 'cluster',
        resourceId: record.id,
        resourceName: input.name,
        details: { windows: input.windows },
      });
      return { windows: input.windows };
    });
  },
});

/** Every window that applies to `app`: its own, its destination cluster's, its org's. */
export async function windowsOfApp(ctx: UseCaseContext, app: AppResource): Promise<SourcedWindow[]> {
  const db = ctx.services.store.db;
  const clusterName = app.spec.destination.cluster ?? '';
  const cluster = clusterName ? await new ClusterStore(db).get(ctx.actor.org.id, clusterName) : undefined;
  return sourcedWindows({
    app: app.spec.syncPolicy?.windows ?? [],
    cluster: cluster?.windows ?? [],
    org: await orgWindows(db, ctx.actor.org.id),
  });
}

/** The App windows view (GET /apps/{ns}/{name}/windows). */
export interface AppWindowsView {
  open: boolean;
  reason: string;
  message: string;
  window: WindowView | null;
  changes_at: string | null;
  active: WindowView[];
  windows: WindowView[];
}

interface WindowView {
  name: string;
  kind: string;
  schedule: string;
  duration: string;
  time_zone: string;
  source: string;
}

const viewOf = (w: SourcedWindow): WindowView => ({
  name: w.name,
  kind: w.kind,
  schedule: w.schedule,
  duration: w.duration,
  time_zone: w.timeZone ?? 'UTC',
  source: w.source,
});

/** The view of a verdict over `windows`. */
export function appWindowsView(windows: readonly SourcedWindow[], verdict: WindowVerdict): AppWindowsView {
  const shut = verdict.open ? undefined : verdict;
  return {
    open: verdict.open,
    reason: shut?.reason ?? '',
    message: shut?.message ?? '',
    window: shut ? viewOf(shut.window) : null,
    changes_at: shut?.changesAt?.toISOString() ?? null,
    active: verdict.open ? verdict.active.map(viewOf) : [],
    windows: windows.map(viewOf),
  };
}

/** Whether the App's windows let a sync run now. */
export const appWindows = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, _ref: AppRef, app): Promise<AppWindowsView> => {
    const windows = await windowsOfApp(ctx, app);
    return appWindowsView(windows, evaluateWindows(windows, new Date()));
  },
});

/**
 * The check a caller's sync (Sync, Deploy, Rollback) passes: while a window blocks, 409 naming it, unless
 * `override` (which needs `deployment:manage` on the App: 403 otherwise). Answers the window overridden, for the
 * audit, else undefined.
 */
export async function admitByWindows(
  ctx: UseCaseContext,
  app: AppResource,
  override: boolean,
): Promise<SourcedWindow | undefined> {
  const windows = await windowsOfApp(ctx, app);
  if (windows.length === 0) return undefined;
  const verdict = evaluateWindows(windows, new Date());
  if (verdict.open) return undefined;
  if (!override) {
    throw new ConflictError(
      `sync refused: ${verdict.message}; a deployment:manage caller may override once with override_windows=true`,
    );
  }
  ctx.require('deployment:manage', appScope(app));
  return verdict.window;
}
