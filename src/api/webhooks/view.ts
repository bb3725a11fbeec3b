/** How webhooks and their deliveries look in the API. */
import type { Static } from 'typebox';
import type { WebhookEvent } from '../../core/events.ts';
import type { Delivery as StoredDelivery } from '../../store/deliveries.ts';
import type { Webhook as StoredWebhook } from '../../store/webhooks.ts';
import type { Delivery, Webhook } from './contract.ts';

/** A webhook as the API shows it: never its secret; its URL's path only to those who may manage webhooks. */
export function webhookView(w: StoredWebhook, fullURL: boolean): Static<typeof Webhook> {
  const u = new URL(w.url);
  return {
    id: w.id,
    name: w.name,
    url: fullURL ? w.url : `${u.protocol}//${u.host}/…`,
    events: w.events as WebhookEvent[],
    created_by: w.createdBy,
    created_at: w.createdAt,
  };
}

/** A delivery as the log shows it (the body is not repeated: it is the event). */
export function deliveryView(d: StoredDelivery): Static<typeof Delivery> {
  return {
    id: d.id,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    event_type: d.eventType,
    state: d.state,
    attempts: d.attempts,
    response_code: d.responseCode,
    latency_ms: d.latencyMs,
    last_error: d.lastError,
    next_attempt_at: d.state === 'pending' ? d.nextAttemptAt : null,
    created_at: d.createdAt,
    delivered_at: d.deliveredAt,
    attempt_log: d.attemptLog,
  };
}
