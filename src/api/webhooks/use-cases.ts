/**
 * The webhook use-cases of /webhooks (docs/webhooks.md): register an endpoint for svc's events (its signing secret
 * is made here, sealed at rest and shown once), list, delete, test, and read its delivery log. Creating checks the
 * URL against the outbound policy (the same SSRF guard as secret stores and registries). Audited `webhook.create`,
 * `webhook.delete`, `webhook.test` (contract §6.4), each in the transaction of its write.
 */
import { NotFoundError, UnprocessableError } from '../../core/errors.ts';
import { deliveryBody, type SvcEvent } from '../../core/events.ts';
import { OutboundRefusedError } from '../../net/errors.ts';
import { checkOutboundHost, checkOutboundURL } from '../../net/outbound.ts';
import { type Delivery, DeliveryStore, newDeliveryId } from '../../store/deliveries.ts';
import { newEventId } from '../../store/ops-events.ts';
import { newWebhookId, type Webhook, WebhookStore, webhookSecretContext } from '../../store/webhooks.ts';
import { outcomeOf, postDelivery } from '../../webhooks/deliver.ts';
import { newWebhookSecret } from '../../webhooks/signature.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';

/** The org's webhook `id`; 404 outside the org. */
async function locateWebhook(ctx: UseCaseContext, id: string): Promise<Webhook> {
  const webhook = await new WebhookStore(ctx.services.store.db).get(ctx.actor.org.id, id);
  if (!webhook) throw new NotFoundError(`webhook ${id} not found`);
  return webhook;
}

/** Whether the caller sees full URLs (holds `webhook:manage`). */
const managesWebhooks = (ctx: UseCaseContext) => ctx.can('webhook:manage');

/** The URL, once the outbound policy accepts it and every address of its host (422 otherwise). */
async function checkURL(ctx: UseCaseContext, raw: string): Promise<URL> {
  const policy = ctx.services.config.outbound;
  const url = checkOutboundURL(raw, policy);
  try {
    await checkOutboundHost(url.hostname, policy);
  } catch (err) {
    if (err instanceof OutboundRefusedError) throw err;
    throw new UnprocessableError(`${url.host}: the host name cannot be resolved`);
  }
  return url;
}

/** The org's webhooks, and whether the caller sees their full URLs. */
export const listWebhooks = useCase({
  permission: 'webhook:read',
  where: 'org',
  act: async (ctx, _input: undefined) => ({
    webhooks: await new WebhookStore(ctx.services.store.db).list(ctx.actor.org.id),
    fullURLs: managesWebhooks(ctx),
  }),
});

/** One webhook, and whether the caller sees its full URL. */
export const getWebhook = useCase({
  permission: 'webhook:read',
  where: 'org',
  locate: locateWebhook,
  act: async (ctx, _id: string, webhook) => ({ webhook, fullURL: managesWebhooks(ctx) }),
});

/** Registers a webhook; answers it with its secret in the clear (the only time it is shown). */
export const createWebhook = useCase({
  permission: 'webhook:manage',
  where: 'org',
  act: async (ctx, input: { name?: string | undefined; url: string; events: string[] }) => {
    const url = await checkURL(ctx, input.url);
    const id = newWebhookId();
    const secret = newWebhookSecret();
    const webhook: Webhook = {
      id,
      orgId: ctx.actor.org.id,
      name: input.name?.trim() || url.host,
      url: url.toString(),
      events: [...new Set(input.events)],
      sealedSecret: ctx.services.sealer.seal(secret, webhookSecretContext(id)),
      createdBy: ctx.actor.caller.user.id,
      createdAt: new Date().toISOString(),
    };
    await ctx.write(async (tx) => {
      await tx.webhooks.create(webhook);
      await tx.record({
        action: 'webhook.create',
        resourceType: 'webhook',
        resourceId: id,
        resourceName: webhook.name,
        details: { host: url.host, events: webhook.events },
      });
    });
    return { webhook, secret };
  },
});

/** Deletes a webhook and its delivery log. */
export const deleteWebhook = useCase({
  permission: 'webhook:manage',
  where: 'org',
  locate: locateWebhook,
  act: (ctx, id: string, webhook) =>
    ctx.write(async (tx) => {
      if (!(await tx.webhooks.delete(ctx.actor.org.id, id))) throw new NotFoundError(`webhook ${id} not found`);
      await tx.record({
        action: 'webhook.delete',
        resourceType: 'webhook',
        resourceId: id,
        resourceName: webhook.name,
      });
    }),
});

/**
 * Sends a `webhook.test` event to the webhook now, signed like every delivery, once (no retries), and logs it as a
 * delivery. Answers the delivery, whatever the receiver said.
 */
export const testWebhook = useCase({
  permission: 'webhook:manage',
  where: 'org',
  locate: locateWebhook,
  act: async (ctx, _id: string, webhook): Promise<Delivery> => {
    const { services, actor } = ctx;
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
      secret = services.sealer.open(webhook.sealedSecret, webhookSecretContext(webhook.id));
    } catch {
      secret = undefined;
    }
    const result = await postDelivery(
      { url: webhook.url, secret, body, eventType: event.type, eventId: event.id, deliveryId },
      services.config.outbound,
    );
    const outcome = outcomeOf(result, 1, { ...services.config.webhookRetry, attempts: 1 }, new Date());
    return ctx.write(async (tx) => {
      const delivery = await tx.deliveries.recordImmediate(
        { orgId: actor.org.id, webhookId: webhook.id, eventId: event.id, eventType: event.type, body },
        outcome,
        deliveryId,
      );
      await tx.record({
        action: 'webhook.test',
        resourceType: 'webhook',
        resourceId: webhook.id,
        resourceName: webhook.name,
        details: { delivery_id: delivery.id, response_code: result.responseCode, state: outcome.state },
      });
      return delivery;
    });
  },
});

/** The webhook's delivery log, newest first. */
export const listDeliveries = useCase({
  permission: 'webhook:read',
  where: 'org',
  locate: (ctx, input: { id: string; limit: number; offset: number }) => locateWebhook(ctx, input.id),
  act: (ctx, input) =>
    new DeliveryStore(ctx.services.store.db).listForWebhook(ctx.actor.org.id, input.id, input.limit, input.offset),
});
