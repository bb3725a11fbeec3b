/**
 * Error answers for route response schemas (and so the OpenAPI document), for routes outside the resource groups
 * that have their own wording (appErrors, clusterErrors, storeErrors): every status is the `{"error": string}` body
 * of contract §7 with a generic description.
 */
import { ErrorBody } from './apps/schemas.ts';

const MEANING: Record<number, string> = {
  400: 'invalid input (body, path or query)',
  401: 'no valid session or API key',
  403: 'missing permission, or a credential that cannot use this route',
  404: 'not found in the caller org',
  409: 'conflict',
  413: 'request body over 1 MiB',
  415: 'request body that is not JSON',
  429: 'too many requests',
  500: 'internal error',
  502: 'an upstream answered wrongly',
  503: 'a dependency is unavailable',
};

/**
 * Response-schema entries for an authenticated route: 400, 401, 403 and 500 (every such route can answer them: a
 * malformed path, no credential, a credential restricted elsewhere, an internal fault) plus `also`.
 */
export function errorResponses(...also: number[]): Record<number, typeof ErrorBody & { description: string }> {
  const statuses = [...new Set([400, 401, 403, 500, ...also])].sort();
  return Object.fromEntries(statuses.map((s) => [s, { description: MEANING[s] ?? 'error', ...ErrorBody }]));
}
