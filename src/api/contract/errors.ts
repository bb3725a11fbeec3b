/**
 * The error answers of the API, written in one place: every 4xx and 5xx is `{"error": "<message>"}` (contract §7,
 * src/api/error-handler.ts), documented per route with what the status means there. Routes list the statuses their
 * use-case can raise (`errors(404, 409)` or `errors({ 404: 'no such team' })`); the statuses every authenticated
 * route can answer (400, 401, 403, 500) are always there, and the ones the server adds around a route (413 and 415
 * for a body, 503 for the /apps routes without a management cluster) are added by `withServerErrors` when the route
 * is registered.
 */
import { type TUnsafe, Type } from 'typebox';
import { component, ref } from './schema.ts';

/** The body of every error answer. */
export const ErrorBody = component(
  'Error',
  Type.Object(
    { error: Type.String({ minLength: 1, description: 'what went wrong, for a person to read' }) },
    { additionalProperties: false, description: 'every error answer (4xx, 5xx)' },
  ),
);

/** What an error status means on any route; a route adds its own sense of 404, 409 and the rest. */
const MEANING = {
  400: 'invalid input: the body, path or query does not match this document',
  401: 'no valid session or API key',
  403: 'missing permission, or a credential that cannot use this route',
  404: 'not found in the caller org',
  409: 'conflict with the current state',
  413: 'request body over 1 MiB',
  415: 'request body that is not JSON (session-cookie writes take JSON only)',
  422: 'the input matches this document but breaks a rule it cannot state (see the route description)',
  429: 'too many requests',
  500: 'internal error',
  502: 'an upstream (registry, cluster, secret store) answered wrongly',
  503: 'a dependency is unavailable',
} as const;

/** A status an API route can answer with `{"error"}`. */
export type ErrorStatus = keyof typeof MEANING;

/** Statuses every authenticated route can answer: a malformed request, no credential, a refused one, a fault. */
const ALWAYS: readonly ErrorStatus[] = [400, 401, 403, 500];

type ErrorAnswer = TUnsafe<{ error: string }>;
type Meanings = Partial<Record<ErrorStatus, string>>;

/** One error answer: the Error component with what `status` means here. */
function answer(status: ErrorStatus, meaning?: string): ErrorAnswer {
  return ref(ErrorBody, { description: meaning ?? MEANING[status] });
}

/**
 * The error answers of a route: 400, 401, 403 and 500, plus each status given (a number for its general meaning,
 * an object to say what it means on this route). `{ base: false }` leaves the four out (public routes).
 */
export function errors(...also: Array<ErrorStatus | Meanings | { base: false }>): Record<number, ErrorAnswer> {
  const meanings: Meanings = {};
  let base = true;
  for (const entry of also) {
    if (typeof entry === 'number') meanings[entry] ??= MEANING[entry];
    else if ('base' in entry) base = false;
    else Object.assign(meanings, entry);
  }
  const statuses = new Set<ErrorStatus>([
    ...(base ? ALWAYS : []),
    ...(Object.keys(meanings).map(Number) as ErrorStatus[]),
  ]);
  return Object.fromEntries([...statuses].sort().map((s) => [s, answer(s, meanings[s])]));
}

/**
 * The answers the server adds around a route, to its response schema as registered: 413 and 415 for a route taking
 * a body (size limit; JSON only), 415 for every write (a cookie-authenticated write must be JSON, src/api/csrf.ts),
 * and 503 for the /apps and /appsets routes (no management cluster configured).
 */
export function withServerErrors(
  url: string,
  methods: readonly string[],
  response: Record<string, unknown>,
  takesBody: boolean,
): Record<string, unknown> {
  const added: Array<[number, ErrorAnswer]> = [];
  const writes = methods.some((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m));
  if (takesBody) added.push([413, answer(413)]);
  if (takesBody || writes) added.push([415, answer(415)]);
  if (/^\/api\/v1\/(apps|appsets)(\/|$)/.test(url))
    added.push([503, answer(503, 'no management cluster configured (SVC_MGMT_KUBECONFIG unset)')]);
  const out = { ...response };
  for (const [status, schema] of added) if (!(status in out)) out[status] = schema;
  return out;
}
