/**
 * /webhooks (docs/webhooks.md): outbound webhooks of the caller's org. Create answers the signing secret once;
 * deliveries are signed (`X-Svc-Signature`), retried with backoff and logged (`GET /webhooks/{id}/deliveries`).
 */
import { type Api, principalOf } from '../api.ts';
import { DELETED, pageOf } from '../contract/schema.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';
import * as contract from '../webhooks/contract.ts';
import * as webhooks from '../webhooks/use-cases.ts';
import { deliveryView, webhookView } from '../webhooks/view.ts';

/** Registers the /webhooks routes. */
export async function webhookRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/webhooks', { schema: contract.listWebhooksRoute }, async (request) => {
    const { webhooks: list, fullURLs } = await run(services, webhooks.listWebhooks, principalOf(request), undefined);
    return { webhooks: list.map((w) => webhookView(w, fullURLs)) };
  });

  api.post('/webhooks', { schema: contract.createWebhookRoute }, async (request, reply) => {
    const { webhook, secret } = await run(services, webhooks.createWebhook, principalOf(request), request.body);
    return reply.code(201).send({ ...webhookView(webhook, true), secret });
  });

  api.get('/webhooks/:id', { schema: contract.getWebhookRoute }, async (request) => {
    const { webhook, fullURL } = await run(services, webhooks.getWebhook, principalOf(request), request.params.id);
    return webhookView(webhook, fullURL);
  });

  api.delete('/webhooks/:id', { schema: contract.deleteWebhookRoute }, async (request) => {
    await run(services, webhooks.deleteWebhook, principalOf(request), request.params.id);
    return DELETED;
  });

  api.post('/webhooks/:id/test', { schema: contract.testWebhookRoute }, async (request) =>
    deliveryView(await run(services, webhooks.testWebhook, principalOf(request), request.params.id)),
  );

  api.get('/webhooks/:id/deliveries', { schema: contract.deliveriesRoute }, async (request) => {
    const page = pageOf(request.query);
    const input = { id: request.params.id, ...page };
    const list = await run(services, webhooks.listDeliveries, principalOf(request), input);
    return { deliveries: list.map(deliveryView), ...page };
  });
}
