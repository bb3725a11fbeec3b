/**
 * /webhooks (docs/webhooks.md): outbound webhooks of the caller's org. Create answers the signing secret once;
 * deliveries are signed (`X-Svc-Signature`), retried with backoff and logged (`GET /webhooks/{id}/deliveries`).
 */
import type { FastifyInstance } from 'fastify';
import { WEBHOOK_EVENTS } from '../../core/events.ts';
import { orgCaller } from '../context.ts';
import { errorAnswers, IdParams, PageQueryProperties, pageOf } from '../route-schemas.ts';
import type { ApiServices } from '../services.ts';
import { deliveryView, WebhookService, webhookView } from '../webhooks/service.ts';

const WebhookObject = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string', description: 'the full URL for callers holding webhook:manage, else scheme and host only' },
    events: { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENTS] } },
    created_by: { type: 'string' },
    created_at: { type: 'string' },
  },
} as const;

const AttemptObject = {
  type: 'object',
  properties: {
    at: { type: 'string' },
    response_code: { type: ['integer', 'null'] },
    latency_ms: { type: 'integer' },
    error: { type: ['string', 'null'] },
    retry_at: { type: ['string', 'null'] },
  },
} as const;

const DeliveryObject = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    webhook_id: { type: 'string' },
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    response_code: { type: ['integer', 'null'] },
    latency_ms: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    next_attempt_at: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    delivered_at: { type: ['string', 'null'] },
    attempt_log: { type: 'array', items: AttemptObject },
  },
} as const;

const MEANINGS = {
  400: 'invalid input, or a URL the outbound policy refuses (scheme, credentials in the URL, address range)',
  404: 'no such webhook in this organization',
};

/** Registers the /webhooks routes (`webhook:read` to read, `webhook:manage` to change or test). */
export async function webhookRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const webhooks = new WebhookService(services);

  app.get(
    '/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: "The caller org's outbound webhooks (secrets are never shown again)",
        response: {
          200: { type: 'object', properties: { webhooks: { type: 'array', items: WebhookObject } } },
          ...errorAnswers({ meanings: MEANINGS }),
        },
      },
    },
    async (request) => {
      const actor = orgCaller(request);
      const full = webhooks.manages(actor);
      return { webhooks: (await webhooks.list(actor)).map((w) => webhookView(w, full)) };
    },
  );

  app.post<{ Body: { name?: string; url: string; events: string[] } }>(
    '/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook; the answer carries its signing secret, shown this once (audited webhook.create)',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['url', 'events'],
          properties: {
            name: { type: 'string', maxLength: 100 },
            url: { type: 'string', minLength: 1, maxLength: 2048 },
            events: {
              type: 'array',
              minItems: 1,
              uniqueItems: true,
              items: { type: 'string', enum: [...WEBHOOK_EVENTS] },
            },
          },
        },
        response: {
          201: {
            type: 'object',
            properties: {
              ...WebhookObject.properties,
              secret: { type: 'string', description: 'the HMAC-SHA256 signing secret; shown only here' },
            },
          },
          ...errorAnswers({ body: true, meanings: MEANINGS }),
        },
      },
    },
    async (request, reply) => {
      const { webhook, secret } = await webhooks.create(orgCaller(request), request.body);
      return reply.code(201).send({ ...webhookView(webhook, true), secret });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'One webhook',
        params: IdParams,
        response: { 200: WebhookObject, ...errorAnswers({ also: [404], meanings: MEANINGS }) },
      },
    },
    async (request) => {
      const actor = orgCaller(request);
      return webhookView(await webhooks.get(actor, request.params.id), webhooks.manages(actor));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook and its delivery log; queued deliveries are dropped (audited webhook.delete)',
        params: IdParams,
        response: {
          200: { type: 'object', properties: { deleted: { type: 'boolean' } } },
          ...errorAnswers({ also: [404], meanings: MEANINGS }),
        },
      },
    },
    async (request) => {
      await webhooks.remove(orgCaller(request), request.params.id);
      return { deleted: true };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/webhooks/:id/test',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a signed webhook.test event now, once, and log it as a delivery (audited webhook.test)',
        params: IdParams,
        body: { type: 'object', additionalProperties: false, properties: {} },
        response: { 200: DeliveryObject, ...errorAnswers({ body: true, also: [404], meanings: MEANINGS }) },
      },
    },
    async (request) => deliveryView(await webhooks.test(orgCaller(request), request.params.id)),
  );

  app.get<{ Params: { id: string }; Querystring: { limit?: string; offset?: string } }>(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'The delivery log of a webhook, newest first: state, attempts, response code, latency',
        params: IdParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: PageQueryProperties,
        },
        response: {
          200: {
            type: 'object',
            properties: {
              deliveries: { type: 'array', items: DeliveryObject },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
            },
          },
          ...errorAnswers({ also: [404], meanings: MEANINGS }),
        },
      },
    },
    async (request) => {
      const { limit, offset } = pageOf(request.query);
      const list = await webhooks.deliveries(orgCaller(request), request.params.id, limit, offset);
      return { deliveries: list.map(deliveryView), limit, offset };
    },
  );
}
