/**
 * The signed-in user and their orgs, from the auth component (/api/auth/*, Better Auth, ./auth.ts) and
 * GET /api/v1/auth/me.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { auth } from './auth.ts';
import { svc } from './client.ts';

export const sessionKey = ['session'] as const;

/** The current session, or null when signed out. */
export function useSession() {
  return useQuery({ queryKey: sessionKey, queryFn: auth.session, staleTime: 30_000 });
}

/** The caller as the API sees it (role in the active org); fails with 403 while no org is active. */
export function useMe(enabled = true) {
  return useQuery({ queryKey: ['me'], queryFn: () => svc.GET('/api/v1/auth/me'), enabled, retry: false });
}

export function useOrgs(enabled = true) {
  return useQuery({ queryKey: ['orgs'], queryFn: auth.orgs, enabled });
}

/**
 * Forgets everything after the identity or the active org changed. The session first, so the frame knows the new
 * org (or that nobody is signed in) before the pages ask again; then every other query is reset, not removed: a
 * page still mounted refetches as the new org, where a removed query would leave it showing the old org's data with
 * nothing left to refetch it.
 */
function useReset() {
  const qc = useQueryClient();
  return async () => {
    await qc.invalidateQueries({ queryKey: sessionKey });
    await qc.resetQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
  };
}

export function useSignIn() {
  return useMutation({ mutationFn: auth.signIn, onSuccess: useReset() });
}

export function useSignUp() {
  return useMutation({ mutationFn: auth.signUp, onSuccess: useReset() });
}

export function useSignOut() {
  return useMutation({ mutationFn: auth.signOut, onSuccess: useReset() });
}

export function useCreateOrg() {
  return useMutation({ mutationFn: auth.createOrg, onSuccess: useReset() });
}

export function useSetActiveOrg() {
  return useMutation({ mutationFn: auth.setActiveOrg, onSuccess: useReset() });
}

/** The active org's members (shared cache key with the members page). */
export function useOrgMembers() {
  return useQuery({ queryKey: ['members'], queryFn: auth.members });
}
