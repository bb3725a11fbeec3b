/**
 * Queries and mutations of teams (/teams: list, get with members and bindings, create, rename, delete, add and
 * remove members) and of a team's role bindings (/role-bindings with `subject_type: team`).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { svc } from './client.ts';
import type { RequestBody } from './types.ts';

/** A role binding to create for a team (scope_id omitted at org scope). */
export type TeamBindingInput = Omit<RequestBody<'/api/v1/role-bindings', 'post'>, 'subject_type' | 'subject_id'>;

const TEAM_PATH = '/api/v1/teams/{id}';

export function useTeams() {
  return useQuery({ queryKey: ['teams'], queryFn: () => svc.GET('/api/v1/teams') });
}

export function useTeam(id: string) {
  return useQuery({ queryKey: ['teams', id], queryFn: () => svc.GET(TEAM_PATH, { params: { path: { id } } }) });
}

export function useCreateTeam() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => svc.POST('/api/v1/teams', { body: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['teams'] }),
  });
}

export function useRenameTeam(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => svc.PATCH(TEAM_PATH, { params: { path: { id } }, body: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['teams'] }),
  });
}

export function useDeleteTeam(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => svc.DELETE(TEAM_PATH, { params: { path: { id } } }),
    onSuccess: () => {
      qc.removeQueries({ queryKey: ['teams'] });
      // The team's bindings went with it.
      void qc.invalidateQueries({ queryKey: ['bindings'] });
    },
  });
}

export function useAddTeamMember(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) =>
      svc.POST(`${TEAM_PATH}/members`, { params: { path: { id } }, body: { user_id: userId } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['teams'] }),
  });
}

export function useRemoveTeamMember(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => svc.DELETE(`${TEAM_PATH}/members/{userId}`, { params: { path: { id, userId } } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['teams'] }),
  });
}

/** Grants the team a level at a scope (POST /role-bindings, subject_type team). */
export function useBindTeam(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: TeamBindingInput) =>
      svc.POST('/api/v1/role-bindings', {
        body: { subject_type: 'team', subject_id: id, ...input } as RequestBody<'/api/v1/role-bindings', 'post'>,
      }),
    onSuccess: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: ['teams', id] }),
        qc.invalidateQueries({ queryKey: ['bindings'] }),
      ]),
  });
}

export function useUnbindTeam(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (bindingId: string) =>
      svc.DELETE('/api/v1/role-bindings/{id}', { params: { path: { id: bindingId } } }),
    onSuccess: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: ['teams', id] }),
        qc.invalidateQueries({ queryKey: ['bindings'] }),
      ]),
  });
}
