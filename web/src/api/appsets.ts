/** Queries of AppSets (/appsets, issue 27): the org's AppSets with the Apps each generated and its errors. */
import { useQuery } from '@tanstack/react-query';
import { svc } from './client.ts';

/** How often the list is read again: generation runs in the operator, not on the live App feed. */
const APPSET_POLL_MS = 5000;

export function useAppSets() {
  return useQuery({
    queryKey: ['appsets'],
    queryFn: () => svc.GET('/api/v1/appsets'),
    refetchInterval: APPSET_POLL_MS,
  });
}
