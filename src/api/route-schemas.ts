/**
 * Schema pieces shared by the routes of teams, webhooks, incidents and remediations: their `{"error"}` answers (for
 * the OpenAPI document), the `{id}` path parameter, and `limit`/`offset` paging.
 */
import { InputError } from '../core/errors.ts';
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

/** A resource id in the path. */
export const IdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 128 } },
} as const;

/** Largest page of a list route. */
export const PAGE_MAX = 200;

/** The query-string properties `limit` (1..200, default 50; larger is capped) and `offset` (default 0). */
export const PageQueryProperties = {
  limit: { type: 'string', pattern: '^[0-9]{1,9}$', description: `1..${PAGE_MAX}, default 50 (larger is capped)` },
  offset: { type: 'string', pattern: '^[0-9]{1,9}$', description: 'default 0' },
} as const;

/** The page a query asks for; InputError for limit 0. */
export function pageOf(query: { limit?: string; offset?: string }): { limit: number; offset: number } {
  const limit = Math.min(query.limit === undefined ? 50 : Number(query.limit), PAGE_MAX);
  if (limit < 1) throw new InputError('limit must be at least 1');
  return { limit, offset: query.offset === undefined ? 0 : Number(query.offset) };
}
