/**
 * Signing of webhook deliveries (docs/webhooks.md "Verifying a delivery"): HMAC-SHA256 with the webhook's secret
 * over `<timestamp>.<raw body>`, sent as `X-Svc-Signature: t=<unix seconds>,v1=<hex digest>`. The timestamp is part
 * of what is signed, so a receiver that refuses old timestamps and remembers the signatures it accepted rejects
 * replays. Every attempt is signed afresh (its own timestamp); the body and the delivery id stay the same.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** Name of the signature header. */
export const SIGNATURE_HEADER = 'X-Svc-Signature';

/** The header value for `body` signed with `secret` at `at`. */
export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** A new webhook secret: `whsec_` + 32 random bytes, base64url. Shown to its creator once. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
