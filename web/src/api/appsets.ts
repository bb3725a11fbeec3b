/**
 * Queries and writes of AppSets (/appsets, issue 27): the org's AppSets with the Apps each generated and its errors;
 * create, replace and delete.
 */
import { useQuery } from '@tanstack/react-query';
import type { AppSetCreate, AppSetUpdate } from '../../../src/client/answers.ts';
import { svc } from './client.ts';
import { useRefreshingMutation } from './mutation.ts';

/** How often the list is read again: generation runs in the operator, not on the live App feed. */
const APPSET_POLL_MS = 5000;

export function useAppSets() {
  return useQuery({
    queryKey: ['appsets'],
    queryFn: () => svc.GET('/api/v1/appsets'),
    refetchInterval: APPSET_POLL_MS,
  });
}

export const useCreateAppSet = () =>
  useRefreshingMutation((body: AppSetCreate) => svc.POST('/api/v1/appsets', { body }), ['appsets']);

export const useUpdateAppSet = (name: string) =>
  useRefreshingMutation(
    (body: AppSetUpdate) => svc.PUT('/api/v1/appsets/{name}', { params: { path: { name } }, body }),
    ['appsets'],
  );

export const useDeleteAppSet = (name: string) =>
  useRefreshingMutation(() => svc.DELETE('/api/v1/appsets/{name}', { params: { path: { name } } }), ['appsets']);
