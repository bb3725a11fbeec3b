/**
 * The App list: server-side filters, sort and keyset pages (GET /apps?…), rendered as a virtual table so 10,000
 * Apps cost what a screenful costs; every filter lives in the URL; statuses update live (api/live.ts).
 */
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Network, Plus } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { type AppFilters, appParams, useAppPages } from '../api/apps.ts';
import type { AppView } from '../api/types.ts';
import { StatusBadge } from '../components/ui/badge.tsx';
import { buttonStyle } from '../components/ui/button.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Input, Select } from '../components/ui/field.tsx';
import { cn } from '../lib/cn.ts';
import { ago, countOf, shortRevision } from '../lib/format.ts';

const ROW_HEIGHT = 44;
const SYNC = ['', 'Synced', 'OutOfSync', 'Syncing', 'Unknown'];
const HEALTH = ['', 'Healthy', 'Degraded', 'Progressing', 'Missing', 'Unknown'];
const SORTS: [string, string][] = [
  ['name', 'Name'],
  ['-updated', 'Recently changed'],
  ['health', 'Worst health first'],
  ['sync', 'Out of sync first'],
];
const COLUMNS = ['Name', 'Namespace', 'Cluster', 'Sync', 'Health', 'Revision', 'Changed'];
const WIDTHS = ['28%', '16%', '14%', '8rem', '8rem', '6rem', '6rem'];

function Row({ app }: { app: AppView }) {
  return (
    <tr
      data-row-name={app.name}
      style={{ height: ROW_HEIGHT }}
      className="border-b border-zinc-100 dark:border-zinc-800"
    >
      <td className="truncate px-3 font-medium">
        <Link to="/apps/$namespace/$name" params={appParams(app)}>
          {app.name}
        </Link>
      </td>
      <td className="truncate px-3 text-zinc-600 dark:text-zinc-400">{app.namespace}</td>
      <td className="truncate px-3 text-zinc-600 dark:text-zinc-400">{app.cluster || 'management'}</td>
      <td className="px-3">
        <StatusBadge value={app.sync_status} />
      </td>
      <td className="px-3">
        <StatusBadge value={app.health} />
      </td>
      <td className="px-3 font-mono text-xs">{shortRevision(app.revision)}</td>
      <td className="px-3 text-xs text-zinc-500">{ago(app.updated_at)}</td>
    </tr>
  );
}

export function AppListPage() {
  const search = useSearch({ from: '/apps' });
  const navigate = useNavigate({ from: '/apps' });
  // Each keystroke is one server query (a few milliseconds over 10,000 Apps); the previous result stays on screen
  // until the new one arrives, and the text box never waits for the URL.
  const [text, setText] = useState(search.q ?? '');
  const onSearch = (value: string) => {
    setText(value);
    void navigate({ search: (s) => ({ ...s, q: value || undefined }), replace: true });
  };

  const filters: AppFilters = useMemo(
    () => ({
      q: search.q,
      sync: search.sync,
      health: search.health,
      cluster: search.cluster,
      namespace: search.namespace,
      sort: search.sort,
    }),
    [search],
  );
  const filtered = Object.values(filters).some(Boolean);
  const { data, error, isPending, fetchNextPage, hasNextPage, isFetchingNextPage } = useAppPages(filters);
  const apps = useMemo(() => data?.pages.flatMap((p) => p.apps) ?? [], [data]);
  const total = data?.pages[0]?.total ?? 0;
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: apps.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtual.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? 0;
  // Rows above and below the window are empty space of the right height (a real table stays a real table).
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtual.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastIndex >= apps.length - 50) void fetchNextPage();
  }, [lastIndex, apps.length, hasNextPage, isFetchingNextPage, fetchNextPage]);

  const set = (key: keyof AppFilters) => (e: React.ChangeEvent<HTMLSelectElement | HTMLInputElement>) =>
    void navigate({ search: (s) => ({ ...s, [key]: e.target.value || undefined }), replace: true });

  return (
    <div>
      <PageHeader title="Apps">
        <span className="text-sm text-zinc-500" aria-live="polite" data-total={data ? total : undefined}>
          {data ? countOf(total, 'app') : ''}
        </span>
        <Link to="/apps/graph" className={cn(buttonStyle({ variant: 'secondary' }), 'no-underline')}>
          <Network className="size-4" aria-hidden /> Dependencies
        </Link>
        <Link to="/apps/new" search={{}} className={cn(buttonStyle({ variant: 'primary' }), 'no-underline')}>
          <Plus className="size-4" aria-hidden /> New app
        </Link>
      </PageHeader>
      <search className="mb-3 grid grid-cols-2 gap-2 md:grid-cols-6" aria-label="Filter apps">
        <Input
          className="col-span-2"
          type="search"
          placeholder="Search name, namespace, cluster, repository"
          aria-label="Search apps"
          value={text}
          onChange={(e) => onSearch(e.target.value)}
        />
        <Select aria-label="Sync status" value={search.sync ?? ''} onChange={set('sync')}>
          {SYNC.map((s) => (
            <option key={s} value={s}>
              {s ? `Sync: ${s}` : 'Any sync status'}
            </option>
          ))}
        </Select>
        <Select aria-label="Health" value={search.health ?? ''} onChange={set('health')}>
          {HEALTH.map((s) => (
            <option key={s} value={s}>
              {s ? `Health: ${s}` : 'Any health'}
            </option>
          ))}
        </Select>
        <Input
          aria-label="Namespace"
          placeholder="Namespace"
          defaultValue={search.namespace ?? ''}
          onBlur={set('namespace')}
        />
        <Select aria-label="Sort" value={search.sort ?? 'name'} onChange={set('sort')}>
          {SORTS.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </Select>
      </search>
      {error ? <ErrorState error={error} title="Could not load the apps" /> : null}
      {isPending ? <Spinner label="Loading apps" /> : null}
      {data && apps.length === 0 ? (
        <Empty title={filtered ? 'No app matches these filters' : 'No apps yet'}>
          {filtered ? null : (
            <Link to="/apps/new" search={{}}>
              Create the first app
            </Link>
          )}
        </Empty>
      ) : null}
      {apps.length > 0 ? (
        <div
          ref={scroller}
          className="h-[calc(100vh-15rem)] min-h-64 overflow-auto rounded-md border border-zinc-200 dark:border-zinc-800"
          data-testid="app-rows"
        >
          <table className="w-full table-fixed text-left text-sm" aria-label="Apps" aria-rowcount={total + 1}>
            <colgroup>
              {WIDTHS.map((w, i) => (
                <col key={COLUMNS[i]} style={{ width: w }} />
              ))}
            </colgroup>
            <thead className="sticky top-0 z-10 bg-zinc-50 dark:bg-zinc-900">
              <tr>
                {COLUMNS.map((h) => (
                  <th key={h} scope="col" className="px-3 py-2 text-xs font-medium text-zinc-500 uppercase">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {padTop > 0 ? <tr aria-hidden style={{ height: padTop }} /> : null}
              {items.map((item) => {
                const app = apps[item.index];
                return app ? <Row key={app.name} app={app} /> : null;
              })}
              {padBottom > 0 ? <tr aria-hidden style={{ height: padBottom }} /> : null}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
