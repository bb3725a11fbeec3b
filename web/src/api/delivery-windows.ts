/** Queries and mutations of the org's delivery windows (/delivery-windows). */
import { useQuery } from '@tanstack/react-query';
import { svc } from './client.ts';
import { useRefreshingMutation } from './mutation.ts';
import type { RequestBody } from './types.ts';

/** What PUT /delivery-windows takes: the whole list. */
export type DeliveryWindowsInput = RequestBody<'/api/v1/delivery-windows', 'put'>;

export function useOrgWindows() {
  return useQuery({ queryKey: ['delivery-windows'], queryFn: () => svc.GET('/api/v1/delivery-windows') });
}

/** Replaces the org's windows. */
export const useSaveOrgWindows = () =>
  useRefreshingMutation(
    (body: DeliveryWindowsInput) => svc.PUT('/api/v1/delivery-windows', { body }),
    ['delivery-windows'],
  );
