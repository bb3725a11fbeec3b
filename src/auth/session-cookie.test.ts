import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readCookie, signSessionToken, verifySessionCookie } from './session-cookie.ts';

const secret = 's'.repeat(40);

describe('session cookie', () => {
  it('verifies the value Better Auth writes: encodeURIComponent(token.base64(HMAC-SHA256(secret, token)))', () => {
    const token = 'fm4SVO60sIgajfYP9jRGvnu8PcJUHi3r';
    const mac = createHmac('sha256', secret).update(token).digest('base64');
    const value = encodeURIComponent(`${token}.${mac}`);
    expect(signSessionToken(token, secret)).toBe(value);
    expect(verifySessionCookie(value, secret)).toBe(token);
  });

  it('refuses another secret, a changed token, a missing signature and garbage', () => {
    const value = signSessionToken('abc', secret);
    expect(verifySessionCookie(value, 't'.repeat(40))).toBeUndefined();
    expect(verifySessionCookie(value.replace('abc', 'abd'), secret)).toBeUndefined();
    expect(verifySessionCookie('abc', secret)).toBeUndefined();
    expect(verifySessionCookie('%E0%A4%A', secret)).toBeUndefined();
    expect(verifySessionCookie('.', secret)).toBeUndefined();
  });

  it('reads the named cookie or its __Secure- variant from a Cookie header', () => {
    const h = 'a=1; better-auth.session_token=v1; b=2';
    expect(readCookie(h, 'better-auth.session_token')).toBe('v1');
    expect(readCookie('__Secure-custom=v2', 'custom')).toBe('v2');
    expect(readCookie('x=1', 'custom')).toBeUndefined();
    expect(readCookie(undefined, 'custom')).toBeUndefined();
  });
});
