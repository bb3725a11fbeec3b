/**
 * Cross-site request forgery on cookie-authenticated writes. A browser attaches svc's session cookie to requests
 * other sites make it send; what those sites cannot do is set a foreign request's Origin to svc's own, or send a
 * JSON body without a CORS preflight (svc answers no preflight). So a write that carries the session cookie must come
 * from svc's own origin (or a trusted one) and, when it has a body, be JSON: a form post, a `text/plain` fetch or a
 * no-cors request from another site is refused before any route runs. API keys (Authorization header) are not
 * ambient credentials and are not affected.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ForbiddenError, UnsupportedMediaTypeError } from '../core/errors.ts';

/** Methods that change state (everything but GET, HEAD and OPTIONS). */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True for a method a forged request could use to change state. */
export function isUnsafeMethod(method: string): boolean {
  return UNSAFE_METHODS.has(method.toUpperCase());
}

/** The origins a cookie-authenticated write may come from: the public URL's origin and the trusted ones. */
export function allowedOrigins(publicURL: string, trusted: readonly string[]): ReadonlySet<string> {
  return new Set([new URL(publicURL).origin, ...trusted.map((o) => new URL(o).origin)]);
}

/**
 * Throws when an unsafe request is a cross-site forgery candidate: ForbiddenError (403) for an `Origin` outside
 * `allowed` (or `Sec-Fetch-Site: cross-site` without one), UnsupportedMediaTypeError (415) for a body that is not
 * `application/json` (`form: true` also lets `application/x-www-form-urlencoded` through, for svc's own HTML forms).
 * A request without Origin and body (curl, the CLI) passes. The caller decides that the request carries a session
 * cookie; safe methods always pass.
 */
export function checkCookieWrite(
  method: string,
  headers: IncomingHttpHeaders,
  allowed: ReadonlySet<string>,
  options: { form?: boolean } = {},
): void {
  if (!isUnsafeMethod(method)) return;
  const origin = headers.origin;
  if (origin !== undefined && !allowed.has(origin)) {
    throw new ForbiddenError('cross-origin request refused: a session-cookie write must come from svc’s own origin');
  }
  if (origin === undefined && headers['sec-fetch-site'] === 'cross-site') {
    throw new ForbiddenError('cross-site request refused: a session-cookie write must come from svc’s own origin');
  }
  const type = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const hasBody = Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;
  if (type === '' && !hasBody) return;
  if (type === 'application/json' || (options.form && type === 'application/x-www-form-urlencoded')) return;
  throw new UnsupportedMediaTypeError('request bodies must be JSON (Content-Type: application/json)');
}
