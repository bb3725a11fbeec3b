/** The `{"error"}` answers of a route for its response schema (and so the OpenAPI document). */
import { ErrorBody } from './apps/schemas.ts';

/** What each status means on any route; a resource adds its own sense of 404 and 409. */
const COMMON: Record<number, string> = {
  400: 'invalid input (body, path or query)',
  401: 'no valid session or API key',
  403: 'missing permission',
  404: 'not found in this organization',
  409: 'conflict with the current state',
  413: 'request body over 1 MiB',
  415: 'request body that is not JSON',
  500: 'internal error',
  503: 'service unavailable',
};

/**
 * The error answers of a route: 400, 401, 403 and 500 always, `body` adds 413 and 415 (routes taking a body),
 * plus `also`; `meanings` overrides what a status means on this route.
 */
export function errorAnswers(options: { body?: boolean; also?: number[]; meanings?: Record<number, string> } = {}) {
  const statuses = [400, 401, 403, 500, ...(options.body ? [413, 415] : []), ...(options.also ?? [])];
  return Object.fromEntries(
    [...new Set(statuses)]
      .sort()
      .map((s) => [s, { description: options.meanings?.[s] ?? COMMON[s] ?? 'error', ...ErrorBody }]),
  ) as Record<number, typeof ErrorBody & { description: string }>;
}
