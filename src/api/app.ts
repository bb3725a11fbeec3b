/**
 * The HTTP application of `svc server` and `svc start`: health probes, the auth component under /api/auth/*, the
 * operator's internal routes (`/internal/*`, `/api/v1/internal/*`, the operator's credential only), and the REST
 * API under /api/v1 (JSON only; every error `{"error"}` from ./error-handler.ts; request ids; an OpenAPI document
 * generated from the route schemas at /api/v1/openapi.json). The parts live in ./server/: the services
 * (services.ts), the Fastify instance and its request-wide hooks (http.ts), the document (openapi.ts) and the
 * /api/v1 scope (api-scope.ts); the routes of each resource in ./routes/.
 */
import type { FastifyInstance } from 'fastify';
import { OperatorAuthenticator } from '../auth/operator-auth.ts';
import { UnavailableError } from '../core/errors.ts';
import type { ServerChannel } from '../internal/channel.ts';
import { reviewToken } from '../kube/index.ts';
import type { ApiRoutes } from './api.ts';
import { mountAuthComponent } from './auth-mount.ts';
import type { ShellJanitor } from './clusters/shell-janitor.ts';
import { allowedOrigins } from './csrf.ts';
import { LocalServerChannel } from './internal/local-channel.ts';
import { appStreamRoutes, STREAM_DEFAULTS } from './routes/app-stream.ts';
import { API_ROUTES } from './routes/index.ts';
import { internalRoutes } from './routes/internal.ts';
import { checkAnswers } from './server/answer-check.ts';
import { registerApiScope } from './server/api-scope.ts';
import type { ApiServerDeps } from './server/deps.ts';
import { createHttpServer } from './server/http.ts';
import { registerOpenApi } from './server/openapi.ts';
import { buildServerParts, runWithServer, type ServerParts } from './server/services.ts';

export type { ApiRoutes } from './api.ts';
export { NO_MGMT_CLUSTER_MESSAGE } from './server/api-scope.ts';
export type { ApiServerDeps } from './server/deps.ts';
export { BODY_LIMIT_BYTES } from './server/http.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's side of the operator's internal channel; `svc start` hands it to its operator (no HTTP). */
    serverChannel: ServerChannel;
    /** Removes expired shell pods (a sweep a minute; tests call `sweep(at)` to look ahead in time). */
    shellJanitor: ShellJanitor;
  }
}

/** The operator's routes: its channel over HTTP, authenticated by its token or ServiceAccount (TokenReview). */
async function registerOperatorRoutes(app: FastifyInstance, parts: ServerParts): Promise<void> {
  const { services, mgmt } = parts;
  const channel = new LocalServerChannel(services.store.db, services.audit, {
    sealer: services.sealer,
    registries: services.registries,
    secrets: parts.secretValues,
    sources: services.sourceAccess,
  });
  app.decorate('serverChannel', channel);
  app.decorate('shellJanitor', parts.shellJanitor);
  await internalRoutes(app, {
    channel,
    operators: new OperatorAuthenticator({
      operatorToken: services.config.channel.operatorToken,
      serviceAccounts: services.config.channel.operatorServiceAccounts,
      // Verifies the operator's ServiceAccount tokens (TokenReview) on the management connection.
      reviewToken: mgmt
        ? (token) =>
            reviewToken(mgmt.client, token).catch((err: unknown) => {
              throw new UnavailableError('cannot verify the ServiceAccount token with the management cluster', {
                cause: err,
              });
            })
        : undefined,
      users: services.authenticator,
    }),
  });
}

/** /healthz, and /readyz once the App cache has synced (migrations ran before the server listens). */
function registerProbes(app: FastifyInstance, parts: ServerParts): void {
  const kube = parts.services.kube;
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // Until the App cache's first list, /apps answers would each go to the apiserver and a slow or unreachable cluster
  // would fail them.
  app.get('/readyz', { schema: { hide: true } }, async () => {
    if (kube && !kube.synced)
      throw new UnavailableError('the App cache has not synced with the management cluster yet');
    return { status: 'ready' };
  });
}

/**
 * Builds (does not start) the API server: opens and migrates the database, connects to the management cluster when
 * configured, and registers every route.
 */
export async function buildApiServer(deps: ApiServerDeps): Promise<FastifyInstance> {
  const parts = await buildServerParts(deps);
  const { services } = parts;
  const { config } = deps;
  const app = await createHttpServer(deps.logger, deps.webDist);
  runWithServer(app, parts);
  await registerOpenApi(app, config);
  if (deps.checkAnswers) checkAnswers(app);
  await registerOperatorRoutes(app, parts);
  registerProbes(app, parts);
  await mountAuthComponent(
    app,
    services.auth,
    config.publicURL,
    allowedOrigins(config.publicURL, config.trustedOrigins),
  );
  const stream: ApiRoutes = (api) => appStreamRoutes(api, services, { ...STREAM_DEFAULTS, ...deps.stream });
  await registerApiScope(app, services, [stream, ...API_ROUTES, ...(deps.routes ?? [])]);
  return app;
}
