/**
 * Queries and mutations of access: role bindings (/role-bindings), the caller's API keys (/auth/api-keys), the
 * permission check (/auth/can-i) and the audit log (/audit).
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { svc } from './client.ts';
import { useRefreshingMutation } from './mutation.ts';
import type { RequestBody } from './types.ts';

/** What POST /role-bindings takes. */
export type BindingInput = RequestBody<'/api/v1/role-bindings', 'post'>;
/** What POST /auth/api-keys takes. */
export type ApiKeyInput = RequestBody<'/api/v1/auth/api-keys', 'post'>;
/** What POST /auth/can-i takes. */
export type CanIInput = RequestBody<'/api/v1/auth/can-i', 'post'>;

export function useBindings() {
  return useQuery({ queryKey: ['bindings'], queryFn: () => svc.GET('/api/v1/role-bindings') });
}

export const useBind = () =>
  useRefreshingMutation((body: BindingInput) => svc.POST('/api/v1/role-bindings', { body }), ['bindings']);

export const useUnbind = () =>
  useRefreshingMutation(
    (id: string) => svc.DELETE('/api/v1/role-bindings/{id}', { params: { path: { id } } }),
    ['bindings'],
  );

export function useApiKeys() {
  return useQuery({ queryKey: ['api-keys'], queryFn: () => svc.GET('/api/v1/auth/api-keys') });
}

/** Mints a key; the answer carries its plaintext, this once. */
export const useMintApiKey = () =>
  useRefreshingMutation((body: ApiKeyInput) => svc.POST('/api/v1/auth/api-keys', { body }), ['api-keys']);

export const useRevokeApiKey = () =>
  useRefreshingMutation(
    (id: string) => svc.DELETE('/api/v1/auth/api-keys/{id}', { params: { path: { id } } }),
    ['api-keys'],
  );

/** Asks the server's one permission decider about the signed-in user. */
export function useCanI() {
  return useMutation({ mutationFn: (body: CanIInput) => svc.POST('/api/v1/auth/can-i', { body }) });
}

/** One page of the audit log, newest first. */
export function useAudit(limit: number, offset: number) {
  return useQuery({
    queryKey: ['audit', offset],
    queryFn: () => svc.GET('/api/v1/audit', { params: { query: { limit: String(limit), offset: String(offset) } } }),
  });
}
