/** Reading Kubernetes Events (core/v1) as svc's own small type: only the fields svc shows. */
import type { KubeClient } from './client.ts';
import { isNotFound } from './errors.ts';

/** A core/v1 Event as read from the apiserver (timestamps are RFC 3339 strings, as on the wire). */
export interface KubeEvent {
  metadata: { name: string; namespace?: string; creationTimestamp?: string };
  involvedObject: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string };
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
}

/**
 * When an event last happened, as an ISO 8601 UTC timestamp with milliseconds (so times compare as strings): its
 * last timestamp, else its event time, first timestamp or creation; '' when it has none.
 */
export function eventTime(e: KubeEvent): string {
  const t = e.lastTimestamp || e.eventTime || e.firstTimestamp || e.metadata.creationTimestamp;
  const ms = t ? Date.parse(t) : Number.NaN;
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
}

/** Every Event in `namespace`; none when the namespace does not exist. Throws KubeApiError. */
export async function listEvents(client: KubeClient, namespace: string): Promise<KubeEvent[]> {
  try {
    const list = await client.request<{ items?: KubeEvent[] }>(
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
    );
    return list.items ?? [];
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}
