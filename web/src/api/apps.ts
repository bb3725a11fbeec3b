/** Queries and mutations of Apps (GET /apps pages, one App, its status, history, events, tree, diff). */
import {
  infiniteQueryOptions,
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { api, get, seg } from './client.ts';
import type { AppDiff, AppEvent, AppPage, AppView, History, OperationAnswer, StatusView, TreeNode } from './types.ts';

/** The list filters, as in the URL and in GET /apps. */
export interface AppFilters {
  q?: string;
  sync?: string;
  health?: string;
  cluster?: string;
  namespace?: string;
  sort?: string;
}

export const PAGE_SIZE = 200;

export const appKey = (namespace: string, name: string) => ['app', namespace, name] as const;

function listPath(filters: AppFilters, cursor: string | undefined): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  for (const [k, v] of Object.entries(filters)) if (v) params.set(k, v);
  if (cursor) params.set('cursor', cursor);
  return `/api/v1/apps?${params}`;
}

/** The query of the App list, one server page at a time (keyset cursor). */
export function appPagesQuery(filters: AppFilters) {
  return infiniteQueryOptions({
    queryKey: ['apps', filters],
    queryFn: ({ pageParam }) => get<AppPage>(listPath(filters, pageParam)),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: AppPage) => last.next_cursor ?? undefined,
  });
}

/** The App list; while a new filter loads, the previous result stays on screen instead of a spinner. */
export function useAppPages(filters: AppFilters) {
  return useInfiniteQuery({ ...appPagesQuery(filters), placeholderData: keepPreviousData });
}

export function useApp(namespace: string, name: string) {
  return useQuery({
    queryKey: appKey(namespace, name),
    queryFn: () => get<AppView>(`/api/v1/apps/${seg(namespace)}/${seg(name)}`),
  });
}

/** The status view; polled every second while `watching` (an operation in flight). */
export function useAppStatus(namespace: string, name: string, watching: boolean) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'status'],
    queryFn: () => get<StatusView>(`/api/v1/apps/${seg(namespace)}/${seg(name)}/status`),
    refetchInterval: watching ? 1000 : false,
  });
}

export function useHistory(namespace: string, name: string) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'history'],
    queryFn: () => get<History>(`/api/v1/apps/${seg(namespace)}/${seg(name)}/history`),
  });
}

export function useEvents(namespace: string, name: string) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'events'],
    queryFn: () => get<{ events: AppEvent[] }>(`/api/v1/apps/${seg(namespace)}/${seg(name)}/events`),
    refetchInterval: 10_000,
  });
}

/** The live tree, refreshed every 5 s and on every change of the App (see live.ts). */
export function useTree(namespace: string, name: string) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'resources'],
    queryFn: () =>
      get<{ name: string; health: string; nodes: TreeNode[] }>(`/api/v1/apps/${seg(namespace)}/${seg(name)}/resources`),
    refetchInterval: 5000,
  });
}

export function useDiff(namespace: string, name: string) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'diff'],
    queryFn: () => get<AppDiff>(`/api/v1/apps/${seg(namespace)}/${seg(name)}/diff`),
  });
}

export type OperationKind = 'sync' | 'rollback' | 'restart' | 'approve' | 'freeze' | 'unfreeze';

/** Posts an operation; the answer carries its id, which the progress banner follows. */
export function useOperation(namespace: string, name: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, body }: { kind: OperationKind; body?: unknown }) =>
      api<OperationAnswer & { frozen?: boolean }>(
        'POST',
        `/api/v1/apps/${seg(namespace)}/${seg(name)}/${kind}`,
        body ?? {},
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: appKey(namespace, name) }),
  });
}
