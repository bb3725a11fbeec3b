/**
 * The durable delivery queue of outbound webhooks and its log (docs/webhooks.md "Delivery"). A delivery is one
 * event to one webhook; it stays `pending` until an attempt gets a 2xx (`delivered`) or the attempts run out
 * (`failed`). Replicas share the queue through row claims: a claim owns a due row for one attempt until
 * `claimed_until`; an expired claim (its replica died mid-attempt) is taken over, so a delivery is sent at least once.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isPostgres, type Tables, type WebhookDeliveryTable } from './database.ts';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One attempt, as the log keeps it. */
export interface Attempt {
  at: string;
  response_code: number | null;
  latency_ms: number;
  error: string | null;
  /** When the next attempt is due, when one follows. */
  retry_at: string | null;
}

export interface Delivery {
  id: string;
  orgId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  body: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: string;
  responseCode: number | null;
  latencyMs: number | null;
  lastError: string | null;
  attemptLog: Attempt[];
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

/** A new delivery id: `dlv_` and a UUID's hex. */
export function newDeliveryId(): string {
  return `dlv_${randomUUID().replaceAll('-', '')}`;
}

function toDelivery(r: WebhookDeliveryTable): Delivery {
  return {
    id: r.id,
    orgId: r.org_id,
    webhookId: r.webhook_id,
    eventId: r.event_id,
    eventType: r.event_type,
    body: r.body,
    state: r.state as DeliveryState,
    attempts: Number(r.attempts),
    nextAttemptAt: r.next_attempt_at,
    responseCode: r.response_code === null ? null : Number(r.response_code),
    latencyMs: r.latency_ms === null ? null : Number(r.latency_ms),
    lastError: r.last_error,
    attemptLog: JSON.parse(r.attempt_log) as Attempt[],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deliveredAt: r.delivered_at,
  };
}

/** What one attempt came to. */
export interface AttemptOutcome {
  attempt: Attempt;
  /** The next state: delivered, pending again (retry at `attempt.retry_at`), or failed. */
  state: DeliveryState;
}

export class DeliveryStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Queues a delivery of `body` (event `eventId`) to webhook `webhookId`, due at once. */
  async enqueue(d: { orgId: string; webhookId: string; eventId: string; eventType: string; body: string }, now: Date) {
    const at = now.toISOString();
    await this.#db
      .insertInto('webhook_delivery')
      .values({
        id: newDeliveryId(),
        org_id: d.orgId,
        webhook_id: d.webhookId,
        event_id: d.eventId,
        event_type: d.eventType,
        body: d.body,
        state: 'pending',
        attempts: 0,
        next_attempt_at: at,
        claimed_by: null,
        claimed_until: null,
        response_code: null,
        latency_ms: null,
        last_error: null,
        attempt_log: '[]',
        created_at: at,
        updated_at: at,
        delivered_at: null,
      })
      .execute();
  }

  /** Records a delivery made on the spot (the test ping): its one attempt and its final state. */
  async recordImmediate(
    d: { orgId: string; webhookId: string; eventId: string; eventType: string; body: string },
    outcome: AttemptOutcome,
    id: string = newDeliveryId(),
  ): Promise<Delivery> {
    const a = outcome.attempt;
    await this.#db
      .insertInto('webhook_delivery')
      .values({
        id,
        org_id: d.orgId,
        webhook_id: d.webhookId,
        event_id: d.eventId,
        event_type: d.eventType,
        body: d.body,
        state: outcome.state,
        attempts: 1,
        next_attempt_at: a.at,
        claimed_by: null,
        claimed_until: null,
        response_code: a.response_code,
        latency_ms: a.latency_ms,
        last_error: a.error,
        attempt_log: JSON.stringify([a]),
        created_at: a.at,
        updated_at: a.at,
        delivered_at: outcome.state === 'delivered' ? a.at : null,
      })
      .execute();
    return (await this.get(id)) as Delivery;
  }

  /**
   * Claims up to `limit` due pending deliveries for `holder` until `now + claimMs`, oldest due first, and returns
   * them, leaving out the webhooks in `skipWebhooks` (those this holder is busy with). On PostgreSQL the candidate
   * rows are locked with `FOR UPDATE SKIP LOCKED`, so replicas claiming at the
   * same moment take disjoint rows; SQLite has one writer (one process owns the file).
   */
  async claimDue(
    holder: string,
    now: Date,
    claimMs: number,
    limit: number,
    skipWebhooks: readonly string[] = [],
  ): Promise<Delivery[]> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + claimMs).toISOString();
    const rows = await this.#db
      .updateTable('webhook_delivery')
      .set({ claimed_by: holder, claimed_until: until })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('webhook_delivery')
          .select('id')
          .where('state', '=', 'pending')
          .where('next_attempt_at', '<=', at)
          .where((w) => w.or([w('claimed_until', 'is', null), w('claimed_until', '<', at)]))
          .$if(skipWebhooks.length > 0, (q) => q.where('webhook_id', 'not in', skipWebhooks))
          .orderBy('next_attempt_at')
          .limit(limit)
          .$if(isPostgres(this.#db), (q) => q.forUpdate().skipLocked()),
      )
      .returningAll()
      .execute();
    return rows.map(toDelivery);
  }

  /**
   * Records an attempt made under `holder`'s claim and releases the claim. False when the claim was lost (taken
   * over after expiring, or the webhook was deleted): the other holder's record stands.
   */
  async recordAttempt(id: string, holder: string, outcome: AttemptOutcome): Promise<boolean> {
    const current = await this.#db
      .selectFrom('webhook_delivery')
      .select(['attempt_log', 'attempts', 'next_attempt_at'])
      .where('id', '=', id)
      .where('claimed_by', '=', holder)
      .executeTakeFirst();
    if (!current) return false;
    const a = outcome.attempt;
    const log = [...(JSON.parse(current.attempt_log) as Attempt[]), a];
    const r = await this.#db
      .updateTable('webhook_delivery')
      .set({
        state: outcome.state,
        attempts: Number(current.attempts) + 1,
        next_attempt_at: a.retry_at ?? current.next_attempt_at,
        claimed_by: null,
        claimed_until: null,
        response_code: a.response_code,
        latency_ms: a.latency_ms,
        last_error: a.error,
        attempt_log: JSON.stringify(log),
        updated_at: a.at,
        ...(outcome.state === 'delivered' ? { delivered_at: a.at } : {}),
      })
      .where('id', '=', id)
      .where('claimed_by', '=', holder)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Gives up `holder`'s claims on the given deliveries without an attempt (they are due again at once). */
  async release(holder: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#db
      .updateTable('webhook_delivery')
      .set({ claimed_by: null, claimed_until: null })
      .where('claimed_by', '=', holder)
      .where('id', 'in', ids)
      .execute();
  }

  /** One delivery. */
  async get(id: string): Promise<Delivery | undefined> {
    const row = await this.#db.selectFrom('webhook_delivery').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toDelivery(row) : undefined;
  }

  /** A webhook's deliveries, newest first. */
  async listForWebhook(orgId: string, webhookId: string, limit: number, offset: number): Promise<Delivery[]> {
    const rows = await this.#db
      .selectFrom('webhook_delivery')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('webhook_id', '=', webhookId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toDelivery);
  }

  /** The deliveries of the given events (an incident's timeline), oldest first. */
  async listForEvents(orgId: string, eventIds: readonly string[]): Promise<Delivery[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom('webhook_delivery')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('event_id', 'in', eventIds)
      .orderBy('created_at')
      .execute();
    return rows.map(toDelivery);
  }

  /** The earliest `next_attempt_at` of a pending delivery, or undefined (lets the dispatcher sleep until then). */
  async nextDue(): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('webhook_delivery')
      .select((eb) => eb.fn.min('next_attempt_at').as('due'))
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return (row?.due as string | null | undefined) ?? undefined;
  }
}
