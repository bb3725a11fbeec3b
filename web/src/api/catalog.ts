/** Queries of the org's catalog (/catalog): its templates, from which a developer makes an App (POST /apps). */
import { useQuery } from '@tanstack/react-query';
import { svc } from './client.ts';

export function useCatalog() {
  return useQuery({ queryKey: ['catalog'], queryFn: () => svc.GET('/api/v1/catalog') });
}
