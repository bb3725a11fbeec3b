/**
 * Verification of Better Auth's signed session cookie, independent of a Better Auth instance: the cookie value is
 * encodeURIComponent(token + "." + base64(HMAC-SHA256(AUTH_SECRET, token))). A valid signature only proves the
 * auth component issued the token; the caller still looks the token up in the session table.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Prefix Better Auth puts on cookie names when it serves over https. */
const SECURE_PREFIX = '__Secure-';

/** The value of cookie `name` (or its `__Secure-` variant) in a Cookie header, still URI-encoded; undefined if absent. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  let secure: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === name) return value;
    if (key === SECURE_PREFIX + name) secure = value;
  }
  return secure;
}

/** Signs a token the way Better Auth does (used by tests and tools; the API only verifies). */
export function signSessionToken(token: string, secret: string): string {
  const signature = createHmac('sha256', secret).update(token).digest('base64');
  return encodeURIComponent(`${token}.${signature}`);
}

/**
 * The session token inside a signed cookie value, or undefined when the value is malformed or the HMAC does not
 * verify under `secret`. Constant-time comparison.
 */
export function verifySessionCookie(rawValue: string, secret: string): string | undefined {
  let value: string;
  try {
    value = decodeURIComponent(rawValue);
  } catch {
    return undefined;
  }
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const token = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1), 'base64');
  const expected = createHmac('sha256', secret).update(token).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return token;
}
