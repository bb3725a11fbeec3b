import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, retryDelayMs } from '../core/backoff.ts';
import { newWebhookSecret, signatureHeader } from './signature.ts';

describe('webhook signatures', () => {
  it('signs "<unix seconds>.<raw body>" with HMAC-SHA256, as docs/webhooks.md says', () => {
    const body = '{"id":"evt_1","type":"incident.opened"}';
    const header = signatureHeader('whsec_test', body, new Date('2026-11-21T06:00:00.900Z'));
    const t = 1795240800;
    expect(header).toBe(`t=${t},v1=${createHmac('sha256', 'whsec_test').update(`${t}.${body}`).digest('hex')}`);
  });

  it('makes secrets that differ and carry 32 random bytes', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newWebhookSecret()).not.toBe(a);
  });
});

describe('retry backoff', () => {
  it('doubles from the base up to the cap, up to 20 % earlier at random', () => {
    const policy = { baseMs: 1000, maxMs: 5000, attempts: 8 };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(policy, n, 0))).toEqual([1000, 2000, 4000, 5000]);
    expect(retryDelayMs(policy, 1, 0.999999)).toBe(800);
    // With any jitter, each retry waits longer than the one before until the cap.
    expect(retryDelayMs(policy, 2, 0.999999)).toBeGreaterThan(retryDelayMs(policy, 1, 0));
    expect(DEFAULT_RETRY).toEqual({ baseMs: 10_000, maxMs: 3_600_000, attempts: 8 });
  });
});
