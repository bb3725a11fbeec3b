/** Outbound webhooks of an org: where svc's events go (docs/webhooks.md). The secret is stored sealed. */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables, WebhookTable } from './database.ts';

export interface Webhook {
  id: string;
  orgId: string;
  name: string;
  url: string;
  events: string[];
  /** Sealed (`enc:v1:`, context `webhook:<id>:secret`). */
  sealedSecret: string;
  createdBy: string;
  createdAt: string;
}

/** A new webhook id: `whk_` and a UUID's hex. */
export function newWebhookId(): string {
  return `whk_${randomUUID().replaceAll('-', '')}`;
}

/** The sealing context of a webhook's secret. */
export function webhookSecretContext(id: string): string {
  return `webhook:${id}:secret`;
}

function toWebhook(r: WebhookTable): Webhook {
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    sealedSecret: r.secret,
    createdBy: r.created_by,
    createdAt: r.created_at,
  };
}

/** Webhook persistence, always within one org except `byId` (the delivery dispatcher's lookup). */
export class WebhookStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Stores a webhook whose id and sealed secret the caller made. */
  async create(w: Webhook): Promise<Webhook> {
    await this.#db
      .insertInto('webhook')
      .values({
        id: w.id,
        org_id: w.orgId,
        name: w.name,
        url: w.url,
        events: JSON.stringify(w.events),
        secret: w.sealedSecret,
        created_by: w.createdBy,
        created_at: w.createdAt,
      })
      .execute();
    return w;
  }

  /** The org's webhooks, oldest first. */
  async list(orgId: string): Promise<Webhook[]> {
    const rows = await this.#db
      .selectFrom('webhook')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toWebhook);
  }

  /** One webhook of the org, or undefined (another org's reads as absent). */
  async get(orgId: string, id: string): Promise<Webhook | undefined> {
    const row = await this.#db
      .selectFrom('webhook')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toWebhook(row) : undefined;
  }

  /** A webhook by id alone (the delivery dispatcher), or undefined once deleted. */
  async byId(id: string): Promise<Webhook | undefined> {
    const row = await this.#db.selectFrom('webhook').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toWebhook(row) : undefined;
  }

  /** Deletes a webhook of the org and (cascade) its deliveries; true when one was deleted. */
  async delete(orgId: string, id: string): Promise<boolean> {
    await this.#db.deleteFrom('webhook_delivery').where('webhook_id', '=', id).where('org_id', '=', orgId).execute();
    const r = await this.#db.deleteFrom('webhook').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The org's webhooks subscribed to `eventType`. */
  async subscribers(orgId: string, eventType: string): Promise<Webhook[]> {
    return (await this.list(orgId)).filter((w) => w.events.includes(eventType));
  }
}
