/**
 * Queries and mutations of container registries (/registries: list, get, create, update, rotate the notification
 * token, delete, test saved and unsaved). The password is write-only: sent, never read back; the notification token
 * is answered once, by create and by a rotation.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { svc } from './client.ts';
import type { RequestBody } from './types.ts';

/** What POST /registries takes. */
export type RegistryInput = RequestBody<'/api/v1/registries', 'post'>;
/** What PATCH /registries/{id} takes (null clears ca, username and password; it can rotate the token). */
export type RegistryChange = RequestBody<'/api/v1/registries/{id}', 'patch'>;
/** What POST /registries/test takes: the connection settings of a registry. */
export type RegistryConnection = RequestBody<'/api/v1/registries/test', 'post'>;

const REGISTRY_PATH = '/api/v1/registries/{id}';

export function useRegistries() {
  return useQuery({ queryKey: ['registries'], queryFn: () => svc.GET('/api/v1/registries') });
}

export function useRegistry(id: string) {
  return useQuery({
    queryKey: ['registries', id],
    queryFn: () => svc.GET(REGISTRY_PATH, { params: { path: { id } } }),
  });
}

export function useCreateRegistry() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: RegistryInput) => svc.POST('/api/v1/registries', { body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['registries'] }),
  });
}

/** Changes a registry; with `rotate_notification_token` the answer carries the new token. */
export function useUpdateRegistry(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: RegistryChange) => svc.PATCH(REGISTRY_PATH, { params: { path: { id } }, body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['registries'] }),
  });
}

export function useDeleteRegistry(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => svc.DELETE(REGISTRY_PATH, { params: { path: { id } } }),
    // Forget the removed one and the list that held it: the list page then loads afresh, never from the cache.
    onSuccess: () => qc.removeQueries({ queryKey: ['registries'] }),
  });
}

/** Tests a saved registry (`id`, its status is updated) or unsaved settings (`input`); always a 200 with the outcome. */
export function useTestRegistry() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (what: { id: string } | { input: RegistryConnection }) =>
      'id' in what
        ? svc.POST(`${REGISTRY_PATH}/test`, { params: { path: { id: what.id } }, body: {} })
        : svc.POST('/api/v1/registries/test', { body: what.input }),
    onSuccess: (_r, what) => ('id' in what ? qc.invalidateQueries({ queryKey: ['registries'] }) : undefined),
  });
}
