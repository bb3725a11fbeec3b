/**
 * Queries and mutations of secret stores (/secret-stores: providers, list, get, references, create, patch, delete,
 * test saved and unsaved). Credentials are write-only: sent, never read back.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { svc } from './client.ts';
import type { RequestBody } from './types.ts';

/**
 * A JSON Schema, as the providers route answers a provider's config and credentials (only what the form reads): the
 * form is built from it.
 */
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

/** A provider's config or credentials schema as the form reads it (the providers route answers JSON Schemas). */
export function fieldSchema(schema: Record<string, unknown> | undefined): FieldSchema {
  return (schema ?? {}) as FieldSchema;
}

/** What POST /secret-stores takes. */
export type StoreInput = RequestBody<'/api/v1/secret-stores', 'post'>;
/** What PATCH /secret-stores/{id} takes. */
export type StoreChange = RequestBody<'/api/v1/secret-stores/{id}', 'patch'>;
/** What POST /secret-stores/test takes. */
export type StoreTestInput = RequestBody<'/api/v1/secret-stores/test', 'post'>;

const STORE_PATH = '/api/v1/secret-stores/{id}';

export function useStoreProviders() {
  return useQuery({
    queryKey: ['secret-store-providers'],
    queryFn: () => svc.GET('/api/v1/secret-stores/providers'),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useSecretStores() {
  return useQuery({ queryKey: ['secret-stores'], queryFn: () => svc.GET('/api/v1/secret-stores') });
}

export function useSecretStore(id: string) {
  return useQuery({
    queryKey: ['secret-stores', id],
    queryFn: () => svc.GET(STORE_PATH, { params: { path: { id } } }),
  });
}

export function useStoreReferences(id: string) {
  return useQuery({
    queryKey: ['secret-stores', id, 'references'],
    queryFn: () => svc.GET(`${STORE_PATH}/references`, { params: { path: { id } } }),
  });
}

export function useCreateStore() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: StoreInput) => svc.POST('/api/v1/secret-stores', { body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['secret-stores'] }),
  });
}

export function usePatchStore(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: StoreChange) => svc.PATCH(STORE_PATH, { params: { path: { id } }, body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['secret-stores'] }),
  });
}

export function useDeleteStore(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => svc.DELETE(STORE_PATH, { params: { path: { id } } }),
    // Forget the removed one and the list that held it: the list page then loads afresh, never from the cache.
    onSuccess: () => qc.removeQueries({ queryKey: ['secret-stores'] }),
  });
}

/** Tests a saved store (`id`) or unsaved settings (`input`); a failing store is a 200 with status error. */
export function useTestStore() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (what: { id: string } | { input: StoreTestInput }) =>
      'id' in what
        ? svc.POST(`${STORE_PATH}/test`, { params: { path: { id: what.id } } })
        : svc.POST('/api/v1/secret-stores/test', { body: what.input }),
    onSuccess: (_r, what) => ('id' in what ? qc.invalidateQueries({ queryKey: ['secret-stores'] }) : undefined),
  });
}
