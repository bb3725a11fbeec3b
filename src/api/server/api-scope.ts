/**
 * The /api/v1 scope: JSON bodies (an empty body counts as none), the answers the server adds around each route
 * (src/api/contract/errors.ts `withServerErrors`), and the request path every route shares: CSRF check for cookie
 * writes → 503 for /apps without a management cluster → authenticate (cookie or API key) → session-only and MCP-only
 * credentials → schema validation → the route (use-case pipeline, src/api/use-case.ts) → JSON.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readCookie } from '../../auth/session-cookie.ts';
import type { Config } from '../../config.ts';
import { ForbiddenError, UnavailableError } from '../../core/errors.ts';
import type { Api, ApiRoutes } from '../api.ts';
import { withServerErrors } from '../contract/errors.ts';
import { allowedOrigins, checkCookieWrite } from '../csrf.ts';
import type { ApiServices } from '../services.ts';

/** Message of every /apps answer while no management cluster is configured. */
export const NO_MGMT_CLUSTER_MESSAGE =
  'no management cluster configured: set SVC_MGMT_KUBECONFIG to the path of a kubeconfig for the management cluster (for a local one, run `npm run cluster`)';

/**
 * JSON bodies as sent; an empty one (zero bytes) is no body, so `curl -X POST -H 'content-type: application/json'`
 * works. Any other body must be one JSON document: whitespace alone (a tab, a vertical tab) is not one, so 400, as
 * the fuzzer expects (RFC 8259: a JSON text is a value between optional whitespace).
 */
function parseJsonBodies(api: FastifyInstance): void {
  const jsonParser = api.getDefaultJsonParser('error', 'error');
  api.removeContentTypeParser('application/json');
  api.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else jsonParser(request, body as string, done);
  });
  // A POST without a body is an empty object, so routes that take none validate the same either way.
  api.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.method !== 'GET' && request.method !== 'DELETE') request.body = {};
  });
}

/** Documents, on each route as it is registered, the answers the server adds around it. */
function documentServerErrors(api: FastifyInstance, prefix: string): void {
  api.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (!response) return;
    const methods = [route.method].flat();
    const url = route.url.startsWith(prefix) ? route.url : `${prefix}${route.url}`;
    route.schema = {
      ...route.schema,
      response: withServerErrors(url, methods, response, route.schema?.body !== undefined),
    };
  });
}

/** Authenticates every route but the public ones and applies the credential rules of the route's config. */
function authenticate(api: FastifyInstance, services: ApiServices, config: Config): void {
  const origins = allowedOrigins(config.publicURL, config.trustedOrigins);
  api.addHook('onRequest', async (request: FastifyRequest) => {
    const path = request.url.split('?')[0] ?? '';
    if (readCookie(request.headers.cookie, config.sessionCookieName) !== undefined) {
      checkCookieWrite(request.method, request.headers, origins, { form: request.routeOptions.config.formPost });
    }
    if (!services.kube && /^\/api\/v1\/apps(\/|$)/.test(path)) throw new UnavailableError(NO_MGMT_CLUSTER_MESSAGE);
    if (request.is404 || request.routeOptions.config.public) return;
    request.caller = await services.authenticator.authenticate({
      cookie: request.headers.cookie,
      authorization: request.headers.authorization,
    });
    if (request.routeOptions.config.sessionOnly && request.caller.kind === 'key') {
      throw new ForbiddenError('this route accepts a session only, not an API key');
    }
    // A key with a tool allowlist is an agent's key: its reach is the tools it names, on the MCP endpoint only.
    if (request.caller.key?.tools && !request.routeOptions.config.mcp) {
      throw new ForbiddenError('this API key has an MCP tool allowlist: it works on /api/v1/mcp only');
    }
  });
}

/** Registers the /api/v1 scope with `routes` (the API's own, then any added, e.g. MCP). */
export async function registerApiScope(
  app: FastifyInstance,
  services: ApiServices,
  routes: readonly ApiRoutes[],
): Promise<void> {
  const prefix = '/api/v1';
  await app.register(
    async (scope) => {
      parseJsonBodies(scope);
      documentServerErrors(scope, prefix);
      authenticate(scope, services, services.config);
      scope.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
      const api = scope.withTypeProvider() as unknown as Api;
      for (const register of routes) await register(api, services);
    },
    { prefix },
  );
}
