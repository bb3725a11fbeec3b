/**
 * Queries and mutations of secret stores (/secret-stores: providers, list, get, references, create, patch, delete,
 * test saved and unsaved). Credentials are write-only: sent, never read back.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { del, get, patch, post, seg } from './client.ts';
import type { SecretStore, StoreReference, StoreTestResult } from './types.ts';

/** A JSON Schema as the providers route answers it (only what the form reads). */
export interface FieldSchema {
  type?: string;
  description?: string;
  default?: unknown;
  enum?: string[];
  pattern?: string;
  maxLength?: number;
  required?: string[];
  properties?: Record<string, FieldSchema>;
  anyOf?: FieldSchema[];
}

export interface StoreProvider {
  type: string;
  provider: string;
  description: string;
  testable: boolean;
  config: FieldSchema;
  credentials: FieldSchema;
}

export interface StoreInput {
  name?: string;
  type?: string;
  provider?: string;
  config?: Record<string, unknown>;
  credentials?: Record<string, unknown>;
}

const path = (id: string) => `/api/v1/secret-stores/${seg(id)}`;

export function useStoreProviders() {
  return useQuery({
    queryKey: ['secret-store-providers'],
    queryFn: () => get<{ items: StoreProvider[] }>('/api/v1/secret-stores/providers'),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useSecretStores() {
  return useQuery({
    queryKey: ['secret-stores'],
    queryFn: () => get<{ items: SecretStore[] }>('/api/v1/secret-stores'),
  });
}

export function useSecretStore(id: string) {
  return useQuery({ queryKey: ['secret-stores', id], queryFn: () => get<SecretStore>(path(id)) });
}

export function useStoreReferences(id: string) {
  return useQuery({
    queryKey: ['secret-stores', id, 'references'],
    queryFn: () => get<{ items: StoreReference[] }>(`${path(id)}/references`),
  });
}

export function useCreateStore() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: StoreInput) => post<SecretStore>('/api/v1/secret-stores', input),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['secret-stores'] }),
  });
}

export function usePatchStore(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: StoreInput) => patch<SecretStore>(path(id), input),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['secret-stores'] }),
  });
}

export function useDeleteStore(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => del<{ deleted: true }>(path(id)),
    // Forget the removed one and the list that held it: the list page then loads afresh, never from the cache.
    onSuccess: () => qc.removeQueries({ queryKey: ['secret-stores'] }),
  });
}

/** Tests a saved store (`id`) or unsaved settings (`input`); a failing store is a 200 with status error. */
export function useTestStore() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (what: { id: string } | { input: StoreInput }) =>
      'id' in what
        ? post<StoreTestResult>(`${path(what.id)}/test`)
        : post<StoreTestResult>('/api/v1/secret-stores/test', what.input),
    onSuccess: (_r, what) => ('id' in what ? qc.invalidateQueries({ queryKey: ['secret-stores'] }) : undefined),
  });
}
