/**
 * A webhook receiver's check of svc's signature, written from docs/webhooks.md ("Verifying a delivery") and not from
 * svc's code: parse `X-Svc-Signature: t=<unix seconds>,v1=<hex>`, refuse timestamps more than 5 minutes off, compare
 * HMAC-SHA256(secret, "<t>.<raw body>") in constant time, and refuse a signature already accepted (a replay).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type Verdict = 'ok' | 'malformed' | 'stale' | 'bad-signature' | 'replay';

export class ReceiverVerifier {
  readonly #secret: string;
  readonly #seen = new Map<string, number>();
  readonly #toleranceS: number;

  constructor(secret: string, toleranceS = 300) {
    this.#secret = secret;
    this.#toleranceS = toleranceS;
  }

  verify(header: string | string[] | undefined, rawBody: string, now = Date.now()): Verdict {
    if (typeof header !== 'string') return 'malformed';
    const parts = new Map<string, string[]>();
    for (const item of header.split(',')) {
      const [k, v] = item.split('=', 2);
      if (!k || !v) return 'malformed';
      parts.set(k.trim(), [...(parts.get(k.trim()) ?? []), v.trim()]);
    }
    const t = Number(parts.get('t')?.[0]);
    const signatures = parts.get('v1') ?? [];
    if (!Number.isInteger(t) || signatures.length === 0) return 'malformed';
    if (Math.abs(now / 1000 - t) > this.#toleranceS) return 'stale';
    const expected = Buffer.from(createHmac('sha256', this.#secret).update(`${t}.${rawBody}`).digest('hex'));
    const match = signatures.find((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), expected));
    if (!match) return 'bad-signature';
    for (const [sig, at] of this.#seen) if (now / 1000 - at > this.#toleranceS) this.#seen.delete(sig);
    if (this.#seen.has(match)) return 'replay';
    this.#seen.set(match, t);
    return 'ok';
  }
}
