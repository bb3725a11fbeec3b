/**
 * Queries and mutations of outbound webhooks (/webhooks: list, get, create, delete, test, delivery log). The signing
 * secret is answered once, by create.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { del, get, post, seg } from './client.ts';
import type { Delivery, Webhook } from './types.ts';

export interface WebhookInput {
  url: string;
  events: string[];
  name?: string;
}

const path = (id: string) => `/api/v1/webhooks/${seg(id)}`;

export function useWebhooks() {
  return useQuery({ queryKey: ['webhooks'], queryFn: () => get<{ webhooks: Webhook[] }>('/api/v1/webhooks') });
}

export function useWebhook(id: string) {
  return useQuery({ queryKey: ['webhooks', id], queryFn: () => get<Webhook>(path(id)) });
}

/** The delivery log, newest first; refreshed while a delivery is still pending (retries land later). */
export function useDeliveries(id: string) {
  return useQuery({
    queryKey: ['webhooks', id, 'deliveries'],
    queryFn: () => get<{ deliveries: Delivery[] }>(`${path(id)}/deliveries?limit=50`),
    refetchInterval: (q) => (q.state.data?.deliveries.some((d) => d.state === 'pending') ? 2000 : false),
  });
}

export function useCreateWebhook() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: WebhookInput) => post<Webhook & { secret: string }>('/api/v1/webhooks', input),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['webhooks'] }),
  });
}

export function useDeleteWebhook(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => del<{ deleted: true }>(path(id)),
    onSuccess: () => qc.removeQueries({ queryKey: ['webhooks'] }),
  });
}

/** Sends a signed `webhook.test` now; answers its delivery. */
export function useTestWebhook(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => post<Delivery>(`${path(id)}/test`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['webhooks', id, 'deliveries'] }),
  });
}
