/**
 * The contract of /webhooks (docs/webhooks.md): outbound webhooks of the caller's org. Create answers the signing
 * secret once; deliveries are signed (`X-Svc-Signature`), retried with backoff and logged.
 */
import { Type } from 'typebox';
import { WEBHOOK_EVENTS } from '../../core/events.ts';
import { errors } from '../contract/errors.ts';
import {
  component,
  Deleted,
  EmptyBody,
  extended,
  IdParams,
  Nullable,
  PageFields,
  PageQuery,
  ref,
  StringEnum,
  Timestamp,
} from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;

export const Webhook = component(
  'Webhook',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      url: Type.String({ description: 'the full URL for callers holding webhook:manage, else scheme and host only' }),
      events: Type.Array(StringEnum(WEBHOOK_EVENTS)),
      created_by: Type.String(),
      created_at: Timestamp(),
    },
    closed,
  ),
);

export const CreatedWebhook = extended('CreatedWebhook', Webhook, {
  secret: Type.String({ description: 'the HMAC-SHA256 signing secret; shown only here' }),
});

export const WebhookRequest = component(
  'WebhookRequest',
  Type.Object(
    {
      name: Type.Optional(Type.String({ maxLength: 100, description: 'default: the URL’s host' })),
      url: Type.String({
        minLength: 1,
        maxLength: 2048,
        pattern: '^https?://[!-.0-?A-~]+(/[!-~]*)?$',
        description:
          'http(s) URL without credentials; 422 when the outbound address policy refuses it or its host does not resolve',
      }),
      events: Type.Array(StringEnum(WEBHOOK_EVENTS), { minItems: 1, uniqueItems: true }),
    },
    closed,
  ),
);

export const DeliveryAttempt = component(
  'DeliveryAttempt',
  Type.Object(
    {
      at: Timestamp(),
      response_code: Nullable(Type.Integer()),
      latency_ms: Type.Integer(),
      error: Nullable(Type.String()),
      retry_at: Nullable(Timestamp()),
    },
    closed,
  ),
);

export const Delivery = component(
  'Delivery',
  Type.Object(
    {
      id: Type.String(),
      webhook_id: Type.String(),
      event_id: Type.String(),
      event_type: Type.String(),
      state: StringEnum(['pending', 'delivered', 'failed'] as const),
      attempts: Type.Integer(),
      response_code: Nullable(Type.Integer()),
      latency_ms: Nullable(Type.Integer()),
      last_error: Nullable(Type.String()),
      next_attempt_at: Nullable(Timestamp()),
      created_at: Timestamp(),
      delivered_at: Nullable(Timestamp()),
      attempt_log: Type.Array(ref(DeliveryAttempt)),
    },
    closed,
  ),
);

const tags = ['webhooks'];
const NOT_FOUND = { 404: 'no such webhook in this organization' };

export const listWebhooksRoute = {
  tags,
  summary: "The caller org's outbound webhooks (webhook:read; secrets are never shown again)",
  response: { 200: Type.Object({ webhooks: Type.Array(ref(Webhook)) }, closed), ...errors() },
};
export const createWebhookRoute = {
  tags,
  summary:
    'Register a webhook (webhook:manage; audited webhook.create); the answer carries its signing secret, shown this once',
  body: ref(WebhookRequest),
  response: { 201: ref(CreatedWebhook), ...errors(422) },
};
export const getWebhookRoute = {
  tags,
  summary: 'One webhook (webhook:read)',
  params: IdParams,
  response: { 200: ref(Webhook), ...errors(NOT_FOUND) },
};
export const deleteWebhookRoute = {
  tags,
  summary:
    'Delete a webhook and its delivery log (webhook:manage; audited webhook.delete); queued deliveries are dropped',
  params: IdParams,
  response: { 200: ref(Deleted), ...errors(NOT_FOUND) },
};
export const testWebhookRoute = {
  tags,
  summary:
    'Send a signed webhook.test event now, once, and log it as a delivery (webhook:manage; audited webhook.test)',
  params: IdParams,
  body: ref(EmptyBody),
  response: { 200: ref(Delivery), ...errors(NOT_FOUND) },
};
export const deliveriesRoute = {
  tags,
  summary: 'The delivery log of a webhook, newest first (webhook:read): state, attempts, response code, latency',
  params: IdParams,
  querystring: Type.Object(PageQuery, closed),
  response: {
    200: Type.Object({ deliveries: Type.Array(ref(Delivery)), ...PageFields }, closed),
    ...errors(NOT_FOUND),
  },
};

export const WEBHOOK_COMPONENTS = [Webhook, CreatedWebhook, WebhookRequest, DeliveryAttempt, Delivery];
