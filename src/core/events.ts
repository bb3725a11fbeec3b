/**
 * svc's own events: what outbound webhooks subscribe to and receive (docs/webhooks.md), and what an incident's
 * timeline is made of. Pure data and the one envelope every delivery body uses.
 */

/** Events a webhook may subscribe to (issue 13; contract §6.6 names signed incident webhooks). */
export const WEBHOOK_EVENTS = [
  'sync.succeeded',
  'sync.failed',
  'health.degraded',
  'health.recovered',
  'incident.opened',
  'incident.resolved',
  'remediation.proposed',
  'remediation.approved',
  'remediation.rejected',
  'remediation.executed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * Events recorded for timelines only (never delivered): an App's operation finishing, an incident acknowledged,
 * and the test ping of `POST /webhooks/{id}/test` (delivered to that one webhook, outside subscriptions).
 */
export const TIMELINE_EVENTS = ['operation.finished', 'incident.acknowledged', 'webhook.test'] as const;
export type EventType = WebhookEvent | (typeof TIMELINE_EVENTS)[number];

/** Whether `type` is an event webhooks can subscribe to. */
export function isWebhookEvent(type: string): type is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(type);
}

/** The App an event is about: its name and destination (the way the API names Apps). */
export interface EventApp {
  name: string;
  namespace: string;
  cluster: string;
}

/** An event as recorded. */
export interface SvcEvent {
  id: string;
  type: EventType;
  createdAt: string;
  org: { id: string; slug: string };
  app: EventApp | undefined;
  incidentId: string | undefined;
  remediationId: string | undefined;
  data: Record<string, unknown>;
}

/**
 * The JSON body a webhook receives for `event` (docs/webhooks.md "Payload"). Built once when the delivery is queued,
 * so every attempt sends (and signs) the same bytes.
 */
export function deliveryBody(event: SvcEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.createdAt,
    org: event.org,
    app: event.app ?? null,
    ...(event.incidentId ? { incident_id: event.incidentId } : {}),
    ...(event.remediationId ? { remediation_id: event.remediationId } : {}),
    data: event.data,
  });
}
