/** Queries and mutations of Apps (GET /apps pages, one App, its status, history, events, tree, diff). */
import {
  infiniteQueryOptions,
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { svc } from './client.ts';
import type { AppPage, RequestBody, StatusView } from './types.ts';

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

/** The API path of one App; its routes are this path and a suffix. */
const APP_PATH = '/api/v1/apps/{namespace}/{name}';

export const appKey = (namespace: string, name: string) => ['app', namespace, name] as const;

/** The query of the App list, one server page at a time (keyset cursor). */
export function appPagesQuery(filters: AppFilters) {
  const query = Object.fromEntries(Object.entries(filters).filter(([, v]) => Boolean(v)));
  return infiniteQueryOptions({
    queryKey: ['apps', filters],
    queryFn: ({ pageParam }) =>
      svc.GET('/api/v1/apps', {
        params: { query: { ...query, limit: String(PAGE_SIZE), ...(pageParam ? { cursor: pageParam } : {}) } },
      }),
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
    queryFn: () => svc.GET(APP_PATH, { params: { path: { namespace, name } } }),
  });
}

/** How often the status is read again while an operation runs, in case the live feed is down. */
const RUNNING_STATUS_POLL_MS = 5000;

/**
 * The status view. It follows the App's changes through the live feed (live.ts refetches it on each change of the
 * App), so an idle page asks nothing; while `running(status)` says an operation is in flight it is also read every
 * 5 s, so a banner still ends if the feed is down.
 */
export function useAppStatus(namespace: string, name: string, running?: (status: StatusView | undefined) => boolean) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'status'],
    queryFn: () => svc.GET(`${APP_PATH}/status`, { params: { path: { namespace, name } } }),
    refetchInterval: (query) => (running?.(query.state.data) ? RUNNING_STATUS_POLL_MS : false),
  });
}

/** The approvals of the App's held sync and who may still approve (GET /apps/{ns}/{name}/approvals). */
export function useApprovals(namespace: string, name: string) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'approvals'],
    queryFn: () => svc.GET(`${APP_PATH}/approvals`, { params: { path: { namespace, name } } }),
    refetchInterval: 10_000,
  });
}

/** Whether the App's delivery windows let a sync run now (GET /apps/{ns}/{name}/windows). */
export function useWindows(namespace: string, name: string) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'windows'],
    queryFn: () => svc.GET(`${APP_PATH}/windows`, { params: { path: { namespace, name } } }),
    refetchInterval: 30_000,
  });
}

export function useHistory(namespace: string, name: string) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'history'],
    queryFn: () => svc.GET(`${APP_PATH}/history`, { params: { path: { namespace, name } } }),
  });
}

export function useEvents(namespace: string, name: string) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'events'],
    queryFn: () => svc.GET(`${APP_PATH}/events`, { params: { path: { namespace, name } } }),
    refetchInterval: 10_000,
  });
}

/** The live tree, refreshed every 5 s and on every change of the App (see live.ts). */
export function useTree(namespace: string, name: string) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'resources'],
    queryFn: () => svc.GET(`${APP_PATH}/resources`, { params: { path: { namespace, name } } }),
    refetchInterval: 5000,
  });
}

/** The diff of what a sync would change; with `revision`, the preview of that ref (GET …/diff?revision=). */
export function useDiff(namespace: string, name: string, revision?: string) {
  return useQuery({
    queryKey: [...appKey(namespace, name), 'diff', revision ?? ''],
    queryFn: () =>
      svc.GET(`${APP_PATH}/diff`, {
        params: { path: { namespace, name }, ...(revision ? { query: { revision } } : {}) },
      }),
  });
}

export type OperationKind = 'sync' | 'rollback' | 'restart' | 'approve' | 'freeze' | 'unfreeze' | 'release';

/** Posts an operation; the answer carries its id, which the progress banner follows. */
export function useOperation(namespace: string, name: string) {
  const qc = useQueryClient();
  const path = { namespace, name };
  return useMutation({
    mutationFn: ({ kind, body }: { kind: OperationKind; body?: RequestBody<`${typeof APP_PATH}/rollback`, 'post'> }) =>
      kind === 'rollback' && body
        ? svc.POST(`${APP_PATH}/rollback`, { params: { path }, body })
        : svc.POST(`${APP_PATH}/${kind as Exclude<OperationKind, 'rollback'>}`, { params: { path }, body: {} }),
    onSuccess: () => qc.invalidateQueries({ queryKey: appKey(namespace, name) }),
  });
}

/** Deletes the App. */
export function useDeleteApp(namespace: string, name: string) {
  return useMutation({ mutationFn: () => svc.DELETE(APP_PATH, { params: { path: { namespace, name } } }) });
}

/** The route parameters of an App's page, from anything that names an App (an App, an incident's App). */
export function appParams(app: { namespace?: string; name?: string }): { namespace: string; name: string } {
  return { namespace: app.namespace ?? '', name: app.name ?? '' };
}
