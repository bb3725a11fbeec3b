/**
 * One App: its state, the operations (each followed until it ends), and tabs for the live resource graph and list,
 * history with one-click rollback, the diff, events and logs. The tab is in the URL (?tab=), so every view links.
 */
import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { Tabs } from 'radix-ui';
import { lazy, Suspense } from 'react';
import { useApp } from '../api/apps.ts';
import { ErrorState, Spinner } from '../components/ui/feedback.tsx';
import { EventsTab } from './app/events.tsx';
import { AppHeader } from './app/header.tsx';
import { HistoryTab } from './app/history.tsx';
import { LogsTab } from './app/logs.tsx';
import { ResourceList } from './app/resource-list.tsx';
import { APP_TABS, type AppTab } from './app/tabs.ts';

const ResourceGraph = lazy(() => import('./app/resource-graph.tsx'));
const DiffTab = lazy(() => import('./app/diff.tsx'));

const LABELS: Record<AppTab, string> = {
  tree: 'Resource graph',
  list: 'Resources',
  history: 'History',
  diff: 'Diff',
  events: 'Events',
  logs: 'Logs',
};

export function AppDetailPage() {
  const { namespace, name } = useParams({ from: '/apps/$namespace/$name' });
  const search = useSearch({ from: '/apps/$namespace/$name' });
  const navigate = useNavigate({ from: '/apps/$namespace/$name' });
  const app = useApp(namespace, name);
  const tab = search.tab ?? 'tree';
  if (app.error) return <ErrorState error={app.error} title={`App ${namespace}/${name}`} />;
  if (!app.data) return <Spinner label="Loading the app" />;
  const ref = { namespace, name };
  return (
    <div className="space-y-4">
      <AppHeader app={app.data} />
      <Tabs.Root value={tab} onValueChange={(v) => void navigate({ search: (s) => ({ ...s, tab: v as AppTab }) })}>
        <Tabs.List
          aria-label="App views"
          className="flex flex-wrap gap-1 border-b border-zinc-200 dark:border-zinc-800"
        >
          {APP_TABS.map((t) => (
            <Tabs.Trigger
              key={t}
              value={t}
              className="-mb-px border-b-2 border-transparent px-3 py-2 text-sm text-zinc-600 data-[state=active]:border-sky-600 data-[state=active]:font-medium data-[state=active]:text-zinc-900 dark:text-zinc-400 dark:data-[state=active]:text-zinc-100"
            >
              {LABELS[t]}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        <div className="pt-4">
          <Suspense fallback={<Spinner />}>
            <Tabs.Content value="tree">{tab === 'tree' ? <ResourceGraph {...ref} /> : null}</Tabs.Content>
            <Tabs.Content value="list">{tab === 'list' ? <ResourceList {...ref} /> : null}</Tabs.Content>
            <Tabs.Content value="history">{tab === 'history' ? <HistoryTab {...ref} /> : null}</Tabs.Content>
            <Tabs.Content value="diff">{tab === 'diff' ? <DiffTab {...ref} /> : null}</Tabs.Content>
            <Tabs.Content value="events">{tab === 'events' ? <EventsTab {...ref} /> : null}</Tabs.Content>
            <Tabs.Content value="logs">{tab === 'logs' ? <LogsTab {...ref} /> : null}</Tabs.Content>
          </Suspense>
        </div>
      </Tabs.Root>
    </div>
  );
}
