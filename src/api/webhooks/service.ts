/**
 * The webhook use-cases of /webhooks (docs/webhooks.md): register an endpoint for svc's events (its signing secret
 * is made here, sealed at rest and shown once), list, delete, test, and read its delivery log. Creating checks the
 * URL against the outbound policy (the same SSRF guard as secret stores and registries). Audited `webhook.create`,
 * `webhook.delete`, `webhook.test` (contract §6.4), each in the transaction of its write.
 */
import { canI } from '../../auth/rbac.ts';
import { InputError, NotFoundError } from '../../core/errors.ts';
import { deliveryBody, type SvcEvent } from '../../core/events.ts';
import { OutboundRefusedError } from '../../net/errors.ts';
import { checkOutboundHost, checkOutboundURL } from '../../net/outbound.ts';
import { type Delivery, newDeliveryId } from '../../store/deliveries.ts';
import { newEventId } from '../../store/ops-events.ts';
import { inTransaction } from '../../store/transaction.ts';
import { newWebhookId, type Webhook, WebhookStore, webhookSecretContext } from '../../store/webhooks.ts';
import { outcomeOf, postDelivery } from '../../webhooks/deliver.ts';
import { newWebhookSecret } from '../../webhooks/signature.ts';
import type { Actor } from '../actor.ts';
import { requirePermission } from '../context.ts';
import type { ApiServices } from '../services.ts';

/** A webhook as the API shows it: never its secret; its URL's path only to those who may manage webhooks. */
export function webhookView(w: Webhook, fullURL: boolean) {
  const u = new URL(w.url);
  return {
    id: w.id,
    name: w.name,
    url: fullURL ? w.url : `${u.protocol}//${u.host}/…`,
    events: w.events,
    created_by: w.createdBy,
    created_at: w.createdAt,
  };
}

/** A delivery as the log shows it (the body is not repeated: it is the event). */
export function deliveryView(d: Delivery) {
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

export class WebhookService {
  readonly #services: ApiServices;
  readonly #webhooks: WebhookStore;
  constructor(services: ApiServices) {
    this.#services = services;
    this.#webhooks = new WebhookStore(services.store.db);
  }

  /** Whether the caller sees full URLs (holds `webhook:manage`). */
  manages(actor: Actor): boolean {
    return canI(actor.caller, 'webhook:manage', 'org', '');
  }

  /** The org's webhooks (`webhook:read`). */
  async list(actor: Actor): Promise<Webhook[]> {
    requirePermission(actor, 'webhook:read');
    return this.#webhooks.list(actor.org.id);
  }

  /** One webhook (`webhook:read`); 404 outside the org. */
  async get(actor: Actor, id: string): Promise<Webhook> {
    requirePermission(actor, 'webhook:read');
    return this.#find(actor, id);
  }

  /**
   * Registers a webhook (`webhook:manage`): 400 when the URL is refused by the outbound policy or its host does not
   * resolve. Answers the webhook and its secret in the clear (the only time it is shown).
   */
  async create(actor: Actor, input: { name?: string; url: string; events: string[] }) {
    requirePermission(actor, 'webhook:manage');
    const url = await this.#checkURL(input.url);
    const id = newWebhookId();
    const secret = newWebhookSecret();
    const webhook: Webhook = {
      id,
      orgId: actor.org.id,
      name: input.name?.trim() || url.host,
      url: url.toString(),
      events: [...new Set(input.events)],
      sealedSecret: this.#services.sealer.seal(secret, webhookSecretContext(id)),
      createdBy: actor.caller.user.id,
      createdAt: new Date().toISOString(),
    };
    await inTransaction(this.#services.store.db, async (tx) => {
      await tx.webhooks.create(webhook);
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'webhook.create',
        resourceType: 'webhook',
        resourceId: id,
        resourceName: webhook.name,
        details: { host: url.host, events: webhook.events },
      });
    });
    return { webhook, secret };
  }

  /** Deletes a webhook and its delivery log (`webhook:manage`); 404 outside the org. */
  async remove(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'webhook:manage');
    const webhook = await this.#find(actor, id);
    await inTransaction(this.#services.store.db, async (tx) => {
      if (!(await tx.webhooks.delete(actor.org.id, id))) throw new NotFoundError(`webhook ${id} not found`);
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'webhook.delete',
        resourceType: 'webhook',
        resourceId: id,
        resourceName: webhook.name,
      });
    });
  }

  /**
   * Sends a `webhook.test` event to the webhook now, signed like every delivery, once (no retries), and logs it as a
   * delivery (`webhook:manage`). Answers the delivery, whatever the receiver said.
   */
  async test(actor: Actor, id: string): Promise<Delivery> {
    requirePermission(actor, 'webhook:manage');
    const webhook = await this.#find(actor, id);
    const event: SvcEvent = {
      id: newEventId(),
      type: 'webhook.test',
      createdAt: new Date().toISOString(),
      org: { id: actor.org.id, slug: actor.org.slug },
      app: undefined,
      incidentId: undefined,
      remediationId: undefined,
      data: { webhook_id: webhook.id, requested_by: actor.caller.user.id },
    };
    const body = deliveryBody(event);
    const deliveryId = newDeliveryId();
    let secret: string | undefined;
    try {
      secret = this.#services.sealer.open(webhook.sealedSecret, webhookSecretContext(webhook.id));
    } catch {
      secret = undefined;
    }
    const result = await postDelivery(
      { url: webhook.url, secret, body, eventType: event.type, eventId: event.id, deliveryId },
      this.#services.config.outbound,
    );
    const outcome = outcomeOf(result, 1, { ...this.#services.config.webhookRetry, attempts: 1 }, new Date());
    return inTransaction(this.#services.store.db, async (tx) => {
      const delivery = await tx.deliveries.recordImmediate(
        { orgId: actor.org.id, webhookId: webhook.id, eventId: event.id, eventType: event.type, body },
        outcome,
        deliveryId,
      );
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'webhook.test',
        resourceType: 'webhook',
        resourceId: webhook.id,
        resourceName: webhook.name,
        details: { delivery_id: delivery.id, response_code: result.responseCode, state: outcome.state },
      });
      return delivery;
    });
  }

  /** The webhook's delivery log, newest first (`webhook:read`); 404 outside the org. */
  async deliveries(actor: Actor, id: string, limit: number, offset: number): Promise<Delivery[]> {
    requirePermission(actor, 'webhook:read');
    await this.#find(actor, id);
    return inTransaction(this.#services.store.db, (tx) =>
      tx.deliveries.listForWebhook(actor.org.id, id, limit, offset),
    );
  }

  async #find(actor: Actor, id: string): Promise<Webhook> {
    const webhook = await this.#webhooks.get(actor.org.id, id);
    if (!webhook) throw new NotFoundError(`webhook ${id} not found`);
    return webhook;
  }

  /** The URL, once the outbound policy accepts it and every address of its host (400 otherwise). */
  async #checkURL(raw: string): Promise<URL> {
    const url = checkOutboundURL(raw, this.#services.config.outbound);
    try {
      await checkOutboundHost(url.hostname, this.#services.config.outbound);
    } catch (err) {
      if (err instanceof OutboundRefusedError) throw err;
      throw new InputError(`${url.host}: the host name cannot be resolved`);
    }
    return url;
  }
}
