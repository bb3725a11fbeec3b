/**
 * Queries and mutations of Git and Helm repositories (/repositories: list, get, references, charts, create,
 * delete, test saved and unsaved). Credentials are write-only: sent, never read back.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { svc } from './client.ts';
import type { RequestBody } from './types.ts';

/** What POST /repositories takes. */
export type RepositoryInput = RequestBody<'/api/v1/repositories', 'post'>;
/** What POST /repositories/test takes. */
export type RepositoryConnection = RequestBody<'/api/v1/repositories/test', 'post'>;

const REPOSITORY_PATH = '/api/v1/repositories/{id}';

export function useRepositories() {
  return useQuery({ queryKey: ['repositories'], queryFn: () => svc.GET('/api/v1/repositories') });
}

export function useRepository(id: string) {
  return useQuery({
    queryKey: ['repositories', id],
    queryFn: () => svc.GET(REPOSITORY_PATH, { params: { path: { id } } }),
  });
}

/** The Apps using a repository. */
export function useRepositoryReferences(id: string) {
  return useQuery({
    queryKey: ['repositories', id, 'references'],
    queryFn: () => svc.GET(`${REPOSITORY_PATH}/references`, { params: { path: { id } } }),
  });
}

/** The charts and versions of a Helm repository (`chart`: an OCI repository's one chart); off without an id. */
export function useRepositoryCharts(id: string | undefined, chart?: string) {
  return useQuery({
    queryKey: ['repositories', id, 'charts', chart ?? ''],
    enabled: Boolean(id),
    queryFn: () =>
      svc.GET(`${REPOSITORY_PATH}/charts`, {
        params: { path: { id: id ?? '' }, query: chart ? { chart } : {} },
      }),
  });
}

export function useCreateRepository() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: RepositoryInput) => svc.POST('/api/v1/repositories', { body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['repositories'] }),
  });
}

export function useDeleteRepository(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => svc.DELETE(REPOSITORY_PATH, { params: { path: { id } } }),
    onSuccess: () => qc.removeQueries({ queryKey: ['repositories'] }),
  });
}

/** Tests a saved repository (`id`, its status is updated) or unsaved settings (`input`); a 200 with the outcome. */
export function useTestRepository() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (what: { id: string } | { input: RepositoryConnection }) =>
      'id' in what
        ? svc.POST(`${REPOSITORY_PATH}/test`, { params: { path: { id: what.id } }, body: {} })
        : svc.POST('/api/v1/repositories/test', { body: what.input }),
    onSuccess: (_r, what) => ('id' in what ? qc.invalidateQueries({ queryKey: ['repositories'] }) : undefined),
  });
}
