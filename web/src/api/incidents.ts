/**
 * Queries and mutations of incidents and remediations (/incidents: list with filters, get with remediations and
 * timeline, acknowledge, resolve; /remediations/{id}/approve and /reject).
 */
import { useQuery } from '@tanstack/react-query';
import type { QueryOf } from '../../../src/client/answers.ts';
import { svc } from './client.ts';
import { useRefreshingMutation } from './mutation.ts';

/** The list filters (GET /incidents). */
export type IncidentFilter = Pick<QueryOf<'/api/v1/incidents'>, 'state' | 'app' | 'cause'>;

export function useIncidents(filter: IncidentFilter, enabled = true) {
  // Only what is set.
  const query = Object.fromEntries(Object.entries(filter).filter(([, v]) => Boolean(v))) as IncidentFilter;
  return useQuery({
    queryKey: ['incidents', 'list', filter],
    queryFn: () => svc.GET('/api/v1/incidents', { params: { query: { ...query, limit: '100' } } }),
    enabled,
  });
}

/** One incident with its remediations and timeline; refreshed while it is open (detector and operations move it). */
export function useIncident(id: string) {
  return useQuery({
    queryKey: ['incidents', id],
    queryFn: () => svc.GET('/api/v1/incidents/{id}', { params: { path: { id } } }),
    refetchInterval: (q) => (q.state.data?.state === 'open' ? 5000 : false),
  });
}

const useIncidentMutation = <V>(fn: (v: V) => Promise<unknown>) => useRefreshingMutation(fn, ['incidents']);

export const useAcknowledgeIncident = (id: string) =>
  useIncidentMutation(() => svc.POST('/api/v1/incidents/{id}/acknowledge', { params: { path: { id } }, body: {} }));

export const useResolveIncident = (id: string) =>
  useIncidentMutation((resolution: string) =>
    svc.POST('/api/v1/incidents/{id}/resolve', { params: { path: { id } }, body: resolution ? { resolution } : {} }),
  );

/** Approves a remediation: its operation is written (409 while another is pending, or when decided already). */
export const useApproveRemediation = () =>
  useIncidentMutation((id: string) =>
    svc.POST('/api/v1/remediations/{id}/approve', { params: { path: { id } }, body: {} }),
  );

export const useRejectRemediation = () =>
  useIncidentMutation(({ id, reason }: { id: string; reason: string }) =>
    svc.POST('/api/v1/remediations/{id}/reject', { params: { path: { id } }, body: reason ? { reason } : {} }),
  );
