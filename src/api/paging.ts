/** `limit` and `offset` of list routes, as query strings (bodies are validated as sent: no coercion). */
import { InputError } from '../core/errors.ts';

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
