/**
 * Queries and mutations of outbound webhooks (/webhooks: list, get, create, delete, test, delivery log). The signing
 * secret is answered once, by create.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { svc } from './client.ts';
import type { RequestBody } from './types.ts';

/** What POST /webhooks takes. */
export type WebhookInput = RequestBody<'/api/v1/webhooks', 'post'>;

const WEBHOOK_PATH = '/api/v1/webhooks/{id}';

export function useWebhooks() {
  return useQuery({ queryKey: ['webhooks'], queryFn: () => svc.GET('/api/v1/webhooks') });
}

export function useWebhook(id: string) {
  return useQuery({ queryKey: ['webhooks', id], queryFn: () => svc.GET(WEBHOOK_PATH, { params: { path: { id } } }) });
}

/** The delivery log, newest first; refreshed while a delivery is still pending (retries land later). */
export function useDeliveries(id: string) {
  return useQuery({
    queryKey: ['webhooks', id, 'deliveries'],
    queryFn: () => svc.GET(`${WEBHOOK_PATH}/deliveries`, { params: { path: { id }, query: { limit: '50' } } }),
    refetchInterval: (q) => (q.state.data?.deliveries?.some((d) => d.state === 'pending') ? 2000 : false),
  });
}

export function useCreateWebhook() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: WebhookInput) => svc.POST('/api/v1/webhooks', { body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['webhooks'] }),
  });
}

export function useDeleteWebhook(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => svc.DELETE(WEBHOOK_PATH, { params: { path: { id } } }),
    onSuccess: () => qc.removeQueries({ queryKey: ['webhooks'] }),
  });
}

/** Sends a signed `webhook.test` now; answers its delivery. */
export function useTestWebhook(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => svc.POST(`${WEBHOOK_PATH}/test`, { params: { path: { id } }, body: {} }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['webhooks', id, 'deliveries'] }),
  });
}
