/**
 * Queries and mutations of container registries (/registries: list, get, create, update, rotate the notification
 * token, delete, test saved and unsaved). The password is write-only: sent, never read back; the notification token
 * is answered once, by create and by a rotation.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { del, get, patch, post, seg } from './client.ts';
import type { Registry, RegistryTestResult } from './types.ts';

/** What POST /registries takes (PATCH takes any of it; null clears ca, username and password). */
export interface RegistryInput {
  name?: string;
  host?: string;
  insecure?: boolean;
  ca?: string | null;
  username?: string | null;
  password?: string | null;
  rotate_notification_token?: boolean;
}

/** A registry as create and a rotation answer it: with its notification token, this once. */
export type RegistryWithToken = Registry & { notification_token?: string };

const path = (id: string) => `/api/v1/registries/${seg(id)}`;

export function useRegistries() {
  return useQuery({
    queryKey: ['registries'],
    queryFn: () => get<{ registries: Registry[] }>('/api/v1/registries'),
  });
}

export function useRegistry(id: string) {
  return useQuery({ queryKey: ['registries', id], queryFn: () => get<Registry>(path(id)) });
}

export function useCreateRegistry() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: RegistryInput) => post<RegistryWithToken>('/api/v1/registries', input),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['registries'] }),
  });
}

/** Changes a registry; with `rotate_notification_token` the answer carries the new token. */
export function useUpdateRegistry(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: RegistryInput) => patch<RegistryWithToken>(path(id), input),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['registries'] }),
  });
}

export function useDeleteRegistry(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => del<{ deleted: true; id: string }>(path(id)),
    // Forget the removed one and the list that held it: the list page then loads afresh, never from the cache.
    onSuccess: () => qc.removeQueries({ queryKey: ['registries'] }),
  });
}

/** Tests a saved registry (`id`, its status is updated) or unsaved settings (`input`); always a 200 with the outcome. */
export function useTestRegistry() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (what: { id: string } | { input: RegistryInput }) =>
      'id' in what
        ? post<RegistryTestResult>(`${path(what.id)}/test`)
        : post<RegistryTestResult>('/api/v1/registries/test', what.input),
    onSuccess: (_r, what) => ('id' in what ? qc.invalidateQueries({ queryKey: ['registries'] }) : undefined),
  });
}
