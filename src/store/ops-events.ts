/**
 * svc's own events (src/ops/event-types.ts): recorded once, and queued for every webhook of the org subscribed to
 * their type, in the caller's transaction, so an event and its deliveries are written together or not at all.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { deliveryBody, type EventApp, type EventType, isWebhookEvent, type SvcEvent } from '../core/events.ts';
import { orderedStamp } from './clock.ts';
import type { OpsEventTable, Tables } from './database.ts';
import { DeliveryStore } from './deliveries.ts';
import { WebhookStore } from './webhooks.ts';

/** An event to record. */
export interface NewEvent {
  org: { id: string; slug: string };
  type: EventType;
  app?: EventApp;
  incidentId?: string;
  remediationId?: string;
  data: Record<string, unknown>;
}

/** A new event id: `evt_` and a UUID's hex. */
export function newEventId(): string {
  return `evt_${randomUUID().replaceAll('-', '')}`;
}

function toEvent(r: OpsEventTable, slug: string): SvcEvent {
  return {
    id: r.id,
    type: r.type as EventType,
    createdAt: r.created_at,
    org: { id: r.org_id, slug },
    app:
      r.app_name === null
        ? undefined
        : { name: r.app_name, namespace: r.app_namespace ?? '', cluster: r.app_cluster ?? '' },
    incidentId: r.incident_id ?? undefined,
    remediationId: r.remediation_id ?? undefined,
    data: JSON.parse(r.data) as Record<string, unknown>,
  };
}

export class EventStore {
  readonly #db: Kysely<Tables>;
  readonly #webhooks: WebhookStore;
  readonly #deliveries: DeliveryStore;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
    this.#webhooks = new WebhookStore(db);
    this.#deliveries = new DeliveryStore(db);
  }

  /** Records the event and queues one delivery per subscribed webhook (webhook events only); returns it. */
  async emit(e: NewEvent, now = new Date()): Promise<SvcEvent> {
    const event: SvcEvent = {
      id: newEventId(),
      type: e.type,
      createdAt: orderedStamp(now),
      org: e.org,
      app: e.app,
      incidentId: e.incidentId,
      remediationId: e.remediationId,
      data: e.data,
    };
    await this.#db
      .insertInto('ops_event')
      .values({
        id: event.id,
        org_id: e.org.id,
        type: e.type,
        app_name: e.app?.name ?? null,
        app_namespace: e.app?.namespace ?? null,
        app_cluster: e.app?.cluster ?? null,
        incident_id: e.incidentId ?? null,
        remediation_id: e.remediationId ?? null,
        data: JSON.stringify(e.data),
        created_at: event.createdAt,
      })
      .execute();
    if (isWebhookEvent(e.type)) {
      const body = deliveryBody(event);
      for (const w of await this.#webhooks.subscribers(e.org.id, e.type)) {
        await this.#deliveries.enqueue(
          { orgId: e.org.id, webhookId: w.id, eventId: event.id, eventType: e.type, body },
          now,
        );
      }
    }
    return event;
  }

  /**
   * The timeline of an incident: its own events, and the events of its App between `from` and `to` (open
   * incidents: until now), oldest first.
   */
  async timeline(
    org: { id: string; slug: string },
    incidentId: string,
    app: { name: string; namespace: string } | undefined,
    from: string,
    to: string | undefined,
  ): Promise<SvcEvent[]> {
    const rows = await this.#db
      .selectFrom('ops_event')
      .selectAll()
      .where('org_id', '=', org.id)
      .where((eb) => {
        const own = eb('incident_id', '=', incidentId);
        if (!app) return own;
        const window = [
          eb('app_name', '=', app.name),
          eb('app_namespace', '=', app.namespace),
          eb('created_at', '>=', from),
          ...(to ? [eb('created_at', '<=', to)] : []),
        ];
        return eb.or([own, eb.and(window)]);
      })
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => toEvent(r, org.slug));
  }
}
