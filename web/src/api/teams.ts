/**
 * Queries and mutations of teams (/teams: list, get with members and bindings, create, rename, delete, add and
 * remove members) and of a team's role bindings (/role-bindings with `subject_type: team`).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { del, get, patch, post, seg } from './client.ts';
import type { Team, TeamBinding, TeamMember } from './types.ts';

/** A team as GET /teams/{id} answers it. */
export type TeamDetail = Team & { members: TeamMember[]; bindings: TeamBinding[] };

/** A role binding to create for a team (scope_id omitted at org scope). */
export interface TeamBindingInput {
  scope: string;
  scope_id?: string;
  level: string;
}

const path = (id: string) => `/api/v1/teams/${seg(id)}`;

export function useTeams() {
  return useQuery({ queryKey: ['teams'], queryFn: () => get<{ teams: Team[] }>('/api/v1/teams') });
}

export function useTeam(id: string) {
  return useQuery({ queryKey: ['teams', id], queryFn: () => get<TeamDetail>(path(id)) });
}

export function useCreateTeam() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => post<Team>('/api/v1/teams', { name }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['teams'] }),
  });
}

export function useRenameTeam(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => patch<Team>(path(id), { name }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['teams'] }),
  });
}

export function useDeleteTeam(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => del<{ deleted: true }>(path(id)),
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
    mutationFn: (userId: string) => post<TeamMember>(`${path(id)}/members`, { user_id: userId }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['teams'] }),
  });
}

export function useRemoveTeamMember(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => del<{ removed: true }>(`${path(id)}/members/${seg(userId)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['teams'] }),
  });
}

/** Grants the team a level at a scope (POST /role-bindings, subject_type team). */
export function useBindTeam(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: TeamBindingInput) =>
      post('/api/v1/role-bindings', { subject_type: 'team', subject_id: id, ...input }),
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
    mutationFn: (bindingId: string) => del(`/api/v1/role-bindings/${seg(bindingId)}`),
    onSuccess: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: ['teams', id] }),
        qc.invalidateQueries({ queryKey: ['bindings'] }),
      ]),
  });
}
