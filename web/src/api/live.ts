/**
 * The live App feed: one EventSource on GET /api/v1/apps/stream for the whole UI. Each `app` event updates the
 * App's own query and replaces it in every loaded list page in place; Apps that appear or vanish make the lists
 * refetch (at most every 2 s, however many events arrive); `reset` (the server could not resume exactly) reloads
 * everything about Apps. The browser reconnects by itself, sending the last event id, so nothing is missed.
 */
import { type InfiniteData, type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ApiPath } from '../../../src/client/answers.ts';
import type { AppPage, AppView } from './types.ts';

export type LiveState = 'connecting' | 'live' | 'offline';

/** The data of an `app` event (the stream's events are not described by the API document). */
interface Change {
  type: 'upsert' | 'delete';
  app: AppView;
}

/** Applies one change to the cached queries; returns whether the lists must be refetched. */
function apply(qc: QueryClient, change: Change): boolean {
  const { app } = change;
  const key = ['app', app.namespace, app.name];
  if (change.type === 'delete') qc.removeQueries({ queryKey: key, exact: true });
  else qc.setQueryData(key, app);
  // The tree and status of an open App page follow its changes at once.
  void qc.invalidateQueries({ queryKey: key, predicate: (q) => q.queryKey.length > 3 });
  let found = false;
  for (const [listKey, data] of qc.getQueriesData<InfiniteData<AppPage>>({ queryKey: ['apps'] })) {
    if (!data) continue;
    let changed = false;
    const pages = data.pages.map((page) => {
      const i = page.apps?.findIndex((a) => a.name === app.name) ?? -1;
      if (i === -1) return page;
      found = true;
      changed = true;
      const apps = [...(page.apps ?? [])];
      if (change.type === 'delete') apps.splice(i, 1);
      else apps[i] = app;
      return { ...page, apps };
    });
    if (changed) qc.setQueryData(listKey, { ...data, pages });
  }
  return !found || change.type === 'delete';
}

/**
 * Opens the feed while `enabled`, once per active org (the server scopes a stream to the org active when it opens,
 * so switching orgs opens a new one); returns its state (shown in the header).
 */
export function useAppFeed(enabled: boolean, org: string | null | undefined): LiveState {
  const qc = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');
  useEffect(() => {
    if (!enabled || !org) return;
    const source = new EventSource('/api/v1/apps/stream' satisfies ApiPath);
    let refetch: ReturnType<typeof setTimeout> | undefined;
    const scheduleRefetch = () => {
      refetch ??= setTimeout(() => {
        refetch = undefined;
        void qc.invalidateQueries({ queryKey: ['apps'] });
      }, 2000);
    };
    source.addEventListener('ready', () => {
      // A list loaded before the feed was live may have missed a change in between: load it once more.
      if (qc.getQueriesData({ queryKey: ['apps'] }).some(([, d]) => d !== undefined)) scheduleRefetch();
      setState('live');
    });
    source.addEventListener('app', (e) => {
      if (apply(qc, JSON.parse((e as MessageEvent<string>).data) as Change)) scheduleRefetch();
    });
    source.addEventListener('reset', () => {
      void qc.invalidateQueries({ queryKey: ['apps'] });
      void qc.invalidateQueries({ queryKey: ['app'] });
    });
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? 'offline' : 'connecting');
    return () => {
      clearTimeout(refetch);
      source.close();
    };
  }, [enabled, org, qc]);
  return state;
}
