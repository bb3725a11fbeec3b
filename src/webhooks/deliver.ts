/**
 * One attempt to deliver a webhook body: signed (./signature.ts), POSTed through the outbound policy (src/net: the
 * same SSRF guard as secret stores and registries), no redirects followed (a signed body goes only where it was
 * addressed), and described without the URL (its path often carries a token).
 */

import { type RetryPolicy, retryDelayMs } from '../core/backoff.ts';
import { describeNetworkFailure } from '../net/errors.ts';
import { type OutboundPolicy, outboundFetch } from '../net/outbound.ts';
import type { Attempt, AttemptOutcome } from '../store/deliveries.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';

/** Timeout of one attempt (connect, answer headers and body). */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** What is sent. */
export interface Outgoing {
  url: string;
  /** The webhook's secret in the clear (opened just for this attempt), or undefined when it cannot be opened. */
  secret: string | undefined;
  body: string;
  eventType: string;
  eventId: string;
  deliveryId: string;
}

/** The result of one POST: the answer's status, or the error that stopped it, and how long it took. */
export interface PostResult {
  responseCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** POSTs `out` once (never throws); `signal` aborts it (a server shutting down). */
export async function postDelivery(
  out: Outgoing,
  policy: OutboundPolicy,
  now: () => Date = () => new Date(),
  timeoutMs = ATTEMPT_TIMEOUT_MS,
  signal?: AbortSignal,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (out.secret === undefined) {
    return {
      responseCode: null,
      latencyMs: 0,
      error: "the webhook's secret cannot be opened (SVC_CREDENTIALS_KEY changed?)",
    };
  }
  try {
    const res = await outboundFetch(
      out.url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'svc-webhooks',
          'X-Svc-Event': out.eventType,
          'X-Svc-Event-Id': out.eventId,
          'X-Svc-Delivery': out.deliveryId,
          [SIGNATURE_HEADER]: signatureHeader(out.secret, out.body, now()),
        },
        body: out.body,
        ...(signal ? { signal } : {}),
      },
      policy,
      { timeoutMs, maxRedirects: 0 },
    );
    await res.body?.cancel().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return { responseCode: res.status, latencyMs: elapsed(), error: ok ? null : `answered ${res.status}` };
  } catch (err) {
    let host = '';
    try {
      host = new URL(out.url).host;
    } catch {
      host = 'webhook';
    }
    return { responseCode: null, latencyMs: elapsed(), error: describeNetworkFailure(host, err) };
  }
}

/**
 * The outcome of attempt number `attemptNo` (1-based) that ended with `r`: delivered on a 2xx; otherwise retried
 * after the backoff of `retry` or, once the attempts are used up, failed.
 */
export function outcomeOf(
  r: PostResult,
  attemptNo: number,
  retry: RetryPolicy,
  at: Date,
  random = Math.random(),
): AttemptOutcome {
  const delivered = r.responseCode !== null && r.responseCode >= 200 && r.responseCode < 300;
  const again = !delivered && attemptNo < retry.attempts;
  const attempt: Attempt = {
    at: at.toISOString(),
    response_code: r.responseCode,
    latency_ms: r.latencyMs,
    error: r.error,
    retry_at: again ? new Date(at.getTime() + retryDelayMs(retry, attemptNo, random)).toISOString() : null,
  };
  return { attempt, state: delivered ? 'delivered' : again ? 'pending' : 'failed' };
}
