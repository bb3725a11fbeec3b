/** Queries and mutations of the org's custom health checks (/health-checks). */
import { useQuery } from '@tanstack/react-query';
import { svc } from './client.ts';
import { useRefreshingMutation } from './mutation.ts';
import type { RequestBody } from './types.ts';

/** What POST /health-checks takes. */
export type HealthCheckInput = RequestBody<'/api/v1/health-checks', 'post'>;

export function useHealthChecks() {
  return useQuery({ queryKey: ['health-checks'], queryFn: () => svc.GET('/api/v1/health-checks') });
}

/** Creates the check of a kind, or replaces it. */
export const useSaveHealthCheck = () =>
  useRefreshingMutation((body: HealthCheckInput) => svc.POST('/api/v1/health-checks', { body }), ['health-checks']);

export const useDeleteHealthCheck = () =>
  useRefreshingMutation(
    (id: string) => svc.DELETE('/api/v1/health-checks/{id}', { params: { path: { id } } }),
    ['health-checks'],
  );
