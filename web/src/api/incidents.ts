/**
 * Queries and mutations of incidents and remediations (/incidents: list with filters, get with remediations and
 * timeline, acknowledge, resolve; /remediations/{id}/approve and /reject).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { get, post, seg } from './client.ts';
import type { Incident, Remediation, TimelineEntry } from './types.ts';

export interface IncidentFilter {
  state?: string | undefined;
  app?: string | undefined;
  cause?: string | undefined;
}

/** An incident as GET /incidents/{id} answers it. */
export type IncidentDetail = Incident & { remediations: Remediation[]; timeline: TimelineEntry[] };

const path = (id: string) => `/api/v1/incidents/${seg(id)}`;

/** The query string of a filter (only what is set). */
function query(f: IncidentFilter): string {
  const q = new URLSearchParams({ limit: '100' });
  for (const [k, v] of Object.entries(f)) if (v) q.set(k, v);
  return q.toString();
}

export function useIncidents(filter: IncidentFilter, enabled = true) {
  return useQuery({
    queryKey: ['incidents', 'list', filter],
    queryFn: () => get<{ incidents: Incident[] }>(`/api/v1/incidents?${query(filter)}`),
    enabled,
  });
}

/** One incident; refreshed while it is open (detector and operations move it on). */
export function useIncident(id: string) {
  return useQuery({
    queryKey: ['incidents', id],
    queryFn: () => get<IncidentDetail>(path(id)),
    refetchInterval: (q) => (q.state.data?.state === 'open' ? 5000 : false),
  });
}

function useIncidentMutation<V>(fn: (v: V) => Promise<unknown>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => qc.invalidateQueries({ queryKey: ['incidents'] }) });
}

export const useAcknowledgeIncident = (id: string) =>
  useIncidentMutation(() => post<Incident>(`${path(id)}/acknowledge`));

export const useResolveIncident = (id: string) =>
  useIncidentMutation((resolution: string) => post<Incident>(`${path(id)}/resolve`, resolution ? { resolution } : {}));

/** Approves a remediation: its operation is written (409 while another is pending, or when decided already). */
export const useApproveRemediation = () =>
  useIncidentMutation((id: string) => post<Remediation>(`/api/v1/remediations/${seg(id)}/approve`));

export const useRejectRemediation = () =>
  useIncidentMutation(({ id, reason }: { id: string; reason: string }) =>
    post<Remediation>(`/api/v1/remediations/${seg(id)}/reject`, reason ? { reason } : {}),
  );
