/**
 * The signed-in user and their orgs, from the auth component (/api/auth/*, Better Auth) and GET /api/v1/auth/me.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, get } from './client.ts';
import type { Me, Org } from './types.ts';

export interface Session {
  session: { id: string; activeOrganizationId?: string | null };
  user: { id: string; email: string; name: string };
}

export const sessionKey = ['session'] as const;

/** The current session, or null when signed out. */
export function useSession() {
  return useQuery({
    queryKey: sessionKey,
    queryFn: () => get<Session | null>('/api/auth/get-session'),
    staleTime: 30_000,
  });
}

/** The caller as the API sees it (role in the active org); fails with 403 while no org is active. */
export function useMe(enabled = true) {
  return useQuery({ queryKey: ['me'], queryFn: () => get<Me>('/api/v1/auth/me'), enabled, retry: false });
}

export function useOrgs(enabled = true) {
  return useQuery({ queryKey: ['orgs'], queryFn: () => get<Org[]>('/api/auth/organization/list'), enabled });
}

/** Invalidates everything after the identity or the active org changed. */
function useReset() {
  const qc = useQueryClient();
  return async () => {
    qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    await qc.invalidateQueries({ queryKey: sessionKey });
  };
}

export function useSignIn() {
  const reset = useReset();
  return useMutation({
    mutationFn: (b: { email: string; password: string }) => api('POST', '/api/auth/sign-in/email', b),
    onSuccess: reset,
  });
}

export function useSignUp() {
  const reset = useReset();
  return useMutation({
    mutationFn: (b: { email: string; password: string; name: string }) => api('POST', '/api/auth/sign-up/email', b),
    onSuccess: reset,
  });
}

export function useSignOut() {
  const reset = useReset();
  return useMutation({ mutationFn: () => api('POST', '/api/auth/sign-out', {}), onSuccess: reset });
}

export function useCreateOrg() {
  const reset = useReset();
  return useMutation({
    mutationFn: (b: { name: string; slug: string }) => api<Org>('POST', '/api/auth/organization/create', b),
    onSuccess: reset,
  });
}

export function useSetActiveOrg() {
  const reset = useReset();
  return useMutation({
    mutationFn: (organizationId: string) => api('POST', '/api/auth/organization/set-active', { organizationId }),
    onSuccess: reset,
  });
}

/** A member of the active org, as the auth component lists them. */
export interface OrgMember {
  id: string;
  userId: string;
  role: string;
  user: { email: string; name: string };
}

/** The active org's members (shared cache key with the members page). */
export function useOrgMembers() {
  return useQuery({
    queryKey: ['members'],
    queryFn: () => get<{ members: OrgMember[] }>('/api/auth/organization/list-members'),
  });
}
