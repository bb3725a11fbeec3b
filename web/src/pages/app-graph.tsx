/**
 * The org's dependency graph (spec.dependsOn, issue 27 item 3): every App that depends on another or is depended on,
 * in columns by depth (lib/dep-layout.ts), an arrow from each dependency to the App waiting for it. A node is
 * coloured by health, says its sync status, and a blocked App says which dependency holds it and why; a node opens
 * its App. Plain HTML nodes over one SVG of edges: no graph library for a layered layout.
 */
import { Link } from '@tanstack/react-router';
import { useEffect, useMemo } from 'react';
import { appParams, useAppPages } from '../api/apps.ts';
import type { AppView } from '../api/types.ts';
import { StatusBadge } from '../components/ui/badge.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { cn } from '../lib/cn.ts';
import { type DepLayout, layoutDependencies, type PlacedNode } from '../lib/dep-layout.ts';
import { countOf } from '../lib/format.ts';

const NODE_W = 240;
const NODE_H = 84;
const GAP_X = 72;
const GAP_Y = 20;
const x = (column: number) => column * (NODE_W + GAP_X);
const y = (row: number) => row * (NODE_H + GAP_Y);

const HEALTH_TONE: Record<string, string> = {
  Healthy: 'border-emerald-500 bg-emerald-50 dark:bg-emerald-950',
  Degraded: 'border-red-500 bg-red-50 dark:bg-red-950',
  Progressing: 'border-sky-500 bg-sky-50 dark:bg-sky-950',
  Missing: 'border-orange-500 bg-orange-50 dark:bg-orange-950',
};

/** Every App of the org: the pages of GET /apps, fetched to the end. */
function useAllApps() {
  const pages = useAppPages({ sort: 'name' });
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const apps = useMemo(() => pages.data?.pages.flatMap((p) => p.apps) ?? [], [pages.data]);
  return { apps, error: pages.error, loading: pages.isPending || hasNextPage };
}

function Node({ node, app }: { node: PlacedNode; app: AppView | undefined }) {
  const style = { left: x(node.column), top: y(node.row), width: NODE_W, height: NODE_H };
  const box = 'absolute overflow-hidden rounded-md border-2 px-2 py-1 text-xs';
  if (!app) {
    return (
      <div data-node={node.name} data-missing className={cn(box, 'border-dashed border-zinc-400')} style={style}>
        <p className="font-mono font-medium">{node.name}</p>
        <p className="text-zinc-500">no App of this name</p>
      </div>
    );
  }
  const blocked = app.blocked_by ?? [];
  const why = blocked.map((b) => `${b.app}: ${b.reason}`).join('; ');
  return (
    <Link
      to="/apps/$namespace/$name"
      params={appParams(app)}
      data-node={app.name}
      data-blocked={blocked.length > 0 ? 'true' : undefined}
      title={why ? `${app.name} is blocked by ${why}` : app.name}
      className={cn(box, 'block no-underline', HEALTH_TONE[app.health] ?? 'border-zinc-400 bg-white dark:bg-zinc-900')}
      style={style}
    >
      <span className="flex items-center gap-1">
        <span className="truncate font-mono font-medium">{app.name}</span>
        <StatusBadge value={app.sync_status} />
        <StatusBadge value={app.health} />
      </span>
      {blocked.length > 0 ? (
        <span data-testid="graph-blocked" className="mt-1 line-clamp-2 text-amber-800 dark:text-amber-300">
          Blocked by {why}
        </span>
      ) : null}
    </Link>
  );
}

/** The edges, each a curve from the right of the dependency to the left of the App depending on it. */
function Edges({ layout, blockedBy }: { layout: DepLayout; blockedBy: (to: string, from: string) => boolean }) {
  const at = new Map(layout.nodes.map((n) => [n.name, n]));
  const width = x(layout.columns) - GAP_X;
  const height = y(layout.rows) - GAP_Y;
  return (
    <svg className="pointer-events-none absolute inset-0" width={width} height={height} aria-hidden>
      <defs>
        <marker id="dep-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="8" markerHeight="8" orient="auto">
          <path d="M0,0 L8,4 L0,8 z" className="fill-zinc-500" />
        </marker>
      </defs>
      {layout.edges.map((e) => {
        const from = at.get(e.from);
        const to = at.get(e.to);
        if (!from || !to) return null;
        const [x1, y1] = [x(from.column) + NODE_W, y(from.row) + NODE_H / 2];
        const [x2, y2] = [x(to.column), y(to.row) + NODE_H / 2];
        const bend = Math.max(24, (x2 - x1) / 2);
        const held = blockedBy(e.to, e.from);
        return (
          <path
            key={`${e.from}->${e.to}`}
            data-edge={`${e.from}->${e.to}`}
            data-blocking={held ? 'true' : undefined}
            d={`M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`}
            fill="none"
            strokeWidth={held ? 2.5 : 1.5}
            strokeDasharray={held ? '6 4' : undefined}
            className={held ? 'stroke-amber-500' : 'stroke-zinc-400'}
            markerEnd="url(#dep-arrow)"
          />
        );
      })}
    </svg>
  );
}

export function AppGraphPage() {
  const { apps, error, loading } = useAllApps();
  const byName = useMemo(() => new Map(apps.map((a) => [a.name, a])), [apps]);
  const layout = useMemo(
    () => layoutDependencies(apps.map((a) => ({ name: a.name, depends_on: a.depends_on ?? [] }))),
    [apps],
  );
  const blockedBy = (to: string, from: string) => (byName.get(to)?.blocked_by ?? []).some((b) => b.app === from);
  return (
    <div>
      <PageHeader title="Dependencies">
        <span className="text-sm text-zinc-500">
          {loading ? '' : `${countOf(layout.nodes.length, 'app')} with dependencies; ${layout.unconnected} without`}
        </span>
        <Link to="/apps" search={{}}>
          App list
        </Link>
      </PageHeader>
      <p className="mb-3 text-sm text-zinc-500">
        An arrow goes from an App to the App that waits for it (spec.dependsOn): an App syncs once its dependencies are
        Synced and Healthy. A dashed arrow holds its App now.
      </p>
      {error ? <ErrorState error={error} title="Could not load the apps" /> : null}
      {loading && !error ? <Spinner label="Loading apps" /> : null}
      {!loading && layout.nodes.length === 0 ? <Empty title="No App depends on another" /> : null}
      {!loading && layout.nodes.length > 0 ? (
        <section
          aria-label="Dependency graph"
          className="overflow-auto rounded-md border border-zinc-200 p-4 dark:border-zinc-800"
        >
          <div className="relative" style={{ width: x(layout.columns) - GAP_X, height: y(layout.rows) - GAP_Y }}>
            <Edges layout={layout} blockedBy={blockedBy} />
            {layout.nodes.map((n) => (
              <Node key={n.name} node={n} app={byName.get(n.name)} />
            ))}
          </div>
        </section>
      ) : null}
    </div>
  );
}
