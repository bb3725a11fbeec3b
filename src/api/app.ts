/**
 * The HTTP application of `svc server` and `svc start`: health probes, the auth component under /api/auth/*, and
 * the REST API under /api/v1 (JSON only; every error `{"error"}` from ./error-handler.ts; request ids; an OpenAPI
 * document generated from the route schemas at /api/v1/openapi.json).
 *
 * Request path: route match → 503 for /apps without a management cluster → authenticate (cookie or API key) →
 * session-only check → schema validation → handler (authorize with canI, domain operation, audit entry) → JSON.
 * The operator's internal routes (`/internal/*`, `/api/v1/internal/*`) accept only the operator's credential.
 */

import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Authenticator } from '../auth/authenticator.ts';
import { type AuthComponentOptions, createAuthComponent, migrateAuthSchema } from '../auth/better-auth.ts';
import { OperatorAuthenticator } from '../auth/operator-auth.ts';
import { readCookie } from '../auth/session-cookie.ts';
import { BackgroundJobs } from '../background/jobs.ts';
import type { Config } from '../config.ts';
import { ForbiddenError, NotFoundError, UnavailableError } from '../core/errors.ts';
import { orgNamespace } from '../core/names.ts';
import type { ServerChannel } from '../internal/channel.ts';
import { connect, type InClusterOptions, type KubeConnection, managementSource, reviewToken } from '../kube/index.ts';
import type { Logger } from '../log.ts';
import { RateLimiter } from '../net/rate-limit.ts';
import { RegistryClient } from '../registry/index.ts';
import { Sealer } from '../secrets/seal.ts';
import { ApiKeyStore } from '../store/api-keys.ts';
import { AuditStore } from '../store/audit.ts';
import { ClusterShellStore } from '../store/cluster-shells.ts';
import { ClusterStore } from '../store/clusters.ts';
import { openStore, type Store } from '../store/database.ts';
import { DbLease } from '../store/lease.ts';
import { migrateStore } from '../store/migrations.ts';
import { orgIdOfNamespace } from '../store/orgs.ts';
import { RegistryStore } from '../store/registries.ts';
import { RoleBindingStore } from '../store/role-bindings.ts';
import { AppEventHub } from './apps/app-events.ts';
import { ErrorBody } from './apps/schemas.ts';
import { mountAuthComponent } from './auth-mount.ts';
import { ClusterConnections } from './clusters/connections.ts';
import { StoredClusterDirectory } from './clusters/directory.ts';
import { ShellJanitor } from './clusters/shell-janitor.ts';
import { allowedOrigins, checkCookieWrite, isUnsafeMethod } from './csrf.ts';
import { handleError, handleFrameworkError } from './error-handler.ts';
import { LocalServerChannel } from './internal/local-channel.ts';
import { KubeApps } from './kube/apps-repo.ts';
import { destinationsOf } from './kube/destinations.ts';
import { OrgImages } from './registries/images.ts';
import { TagPoller } from './registries/tag-poller.ts';
import { adoptRoutes } from './routes/adopt.ts';
import { appLiveRoutes } from './routes/app-live.ts';
import { appOperationRoutes } from './routes/app-operations.ts';
import { appStatusRoutes } from './routes/app-status.ts';
import { appStreamRoutes, STREAM_DEFAULTS, type StreamOptions } from './routes/app-stream.ts';
import { appRoutes } from './routes/apps.ts';
import { auditRoutes } from './routes/audit.ts';
import { authRoutes } from './routes/auth.ts';
import { cliLoginRoutes } from './routes/cli-login.ts';
import { clusterRoutes } from './routes/clusters.ts';
import { healthCheckRoutes } from './routes/health-checks.ts';
import { incidentRoutes } from './routes/incidents.ts';
import { internalRoutes } from './routes/internal.ts';
import { registryRoutes } from './routes/registries.ts';
import { registryNotificationRoutes } from './routes/registry-notifications.ts';
import { roleBindingRoutes } from './routes/role-bindings.ts';
import { secretStoreRoutes } from './routes/secret-stores.ts';
import { teamRoutes } from './routes/teams.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { SecretValueResolver } from './secret-stores/resolver.ts';
import { SecretStoreService } from './secret-stores/service.ts';
import { DEFAULT_SECRET_STORE_TUNING, type SecretStoreTuning } from './secret-stores/tuning.ts';
import type { ApiServices } from './services.ts';
import { serveWebUi } from './web-ui.ts';

/** The 415 a cookie-authenticated write with a non-JSON body gets (src/api/csrf.ts), for every write route. */
const COOKIE_WRITE_415 = {
  description: 'request body that is not JSON (session-cookie writes take JSON only)',
  ...ErrorBody,
};

/** Message of every /apps answer while no management cluster is configured. */
export const NO_MGMT_CLUSTER_MESSAGE =
  'no management cluster configured: set SVC_MGMT_KUBECONFIG to the path of a kubeconfig for the management cluster (for a local one, run `npm run cluster`)';

/** Largest request body (contract §8: cluster registration; the same bound serves every route). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface ApiServerDeps {
  config: Config;
  logger: Logger;
  /** An open store to use (closed with the server); by default the one `config.database` names. */
  store?: Store;
  /** In-cluster credential overrides for clusters registered without a kubeconfig (tests); default the Pod's. */
  inCluster?: InClusterOptions;
  /** How often expired shell pods are removed (default 60 s). */
  shellSweepMs?: number;
  /** Secret-store timeouts and rate limits (tests shorten them); by default DEFAULT_SECRET_STORE_TUNING. */
  secretStores?: Partial<SecretStoreTuning>;
  /** The built web UI to serve (default web/dist of this checkout). */
  webDist?: string;
  /** Timing of GET /apps/stream (heartbeat, re-authentication); tests shorten it. */
  stream?: Partial<StreamOptions>;
  /**
   * More route groups under /api/v1, registered after the API's own with the same authentication and errors: the
   * MCP endpoint (src/server.ts), which builds on the API's services and so is not imported by the API.
   */
  routes?: ApiRoutes[];
}

/** A group of routes under /api/v1, given the API's services. */
export type ApiRoutes = (api: FastifyInstance, services: ApiServices) => Promise<void>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's side of the operator's internal channel; `svc start` hands it to its operator (no HTTP). */
    serverChannel: ServerChannel;
    /** Removes expired shell pods (a sweep a minute; tests call `sweep(at)` to look ahead in time). */
    shellJanitor: ShellJanitor;
  }
}

/** Request ids: the caller's X-Request-Id when it is sane, else a new UUID. */
function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && /^[\w.:-]{1,128}$/.test(header) ? header : crypto.randomUUID();
}

/**
 * Builds (does not start) the API server: opens and migrates the database (svc's tables and Better Auth's, under
 * one lock), connects to the management cluster when configured, and registers every route.
 */
export async function buildApiServer(deps: ApiServerDeps): Promise<FastifyInstance> {
  const { config, logger } = deps;
  const store = deps.store ?? openStore(config.database);
  // One connection to the management cluster: the App cache, App writes and the TokenReviews of the internal routes.
  const mgmt = config.mgmtKubeconfig ? connectManagement(config.mgmtKubeconfig) : undefined;
  const orgOperatorRole = config.orgOperatorRole;
  const kube = mgmt
    ? new KubeApps(mgmt.client, {
        cache: { logger },
        ...(orgOperatorRole
          ? {
              orgOperatorAccess: {
                clusterRole: orgOperatorRole,
                serviceAccounts: config.channel.operatorServiceAccounts,
              },
            }
          : {}),
      })
    : undefined;
  const audit = new AuditStore(store.db);
  const authOptions: AuthComponentOptions = {
    config,
    store,
    audit,
    // The org exists once Better Auth stored it; a namespace that cannot be created now is created again with the
    // org's first App (KubeApps.create), so a failure here is logged rather than failing the sign-up flow.
    onOrganizationCreated: async ({ slug }) => {
      try {
        await kube?.ensureNamespace(orgNamespace(slug));
      } catch (err) {
        logger.warn({ err, slug }, 'could not create the org namespace; it is created with the first app');
      }
    },
  };
  await migrateStore(store, () => migrateAuthSchema(authOptions));
  const auth = createAuthComponent(authOptions);
  const apiKeys = new ApiKeyStore(store.db);
  const bindings = new RoleBindingStore(store.db);
  const sealer = new Sealer(config.credentialsKey);
  const jobs = new BackgroundJobs({ db: store.db, config, sealer, logger, kube });
  const clusterConnections = new ClusterConnections(sealer, {
    outbound: config.outbound,
    ...(deps.inCluster ? { inCluster: deps.inCluster } : {}),
  });
  const clusterStore = new ClusterStore(store.db);
  const clusters = new StoredClusterDirectory(clusterStore, clusterConnections);
  const storeTuning = { ...DEFAULT_SECRET_STORE_TUNING, ...deps.secretStores };
  const secretStores = new SecretStoreService({
    store,
    audit,
    sealer,
    outbound: config.outbound,
    timeoutMs: storeTuning.timeoutMs,
    kube,
    testLimiter: new RateLimiter(storeTuning.test),
  });
  const secretValues = new SecretValueResolver({
    db: store.db,
    sealer,
    outbound: config.outbound,
    timeoutMs: storeTuning.timeoutMs,
    kube,
    fetchLimiter: new RateLimiter(storeTuning.fetch),
  });
  const registries = new RegistryStore(store.db, sealer);
  const images = new OrgImages(registries, new RegistryClient({ policy: config.outbound }));
  const services: ApiServices = {
    config,
    store,
    apiKeys,
    audit,
    bindings,
    authenticator: new Authenticator({
      db: store.db,
      apiKeys,
      bindings,
      authSecret: config.authSecret,
      sessionCookieName: config.sessionCookieName,
    }),
    kube,
    appEvents: kube ? new AppEventHub(kube) : undefined,
    clusters,
    destinations: destinationsOf(mgmt, clusters),
    sealer,
    auth,
    jobs,
    clusterConnections,
    secretStores,
    registries,
    images,
    tagPoller: kube
      ? new TagPoller({
          kube,
          orgOf: (namespace) => orgIdOfNamespace(store.db, namespace),
          images,
          audit,
          logger,
          intervalMs: config.tagPollIntervalMs,
          // One poller among the replicas sharing this database.
          lease: new DbLease(store.db, { name: 'tag-poller', holder: crypto.randomUUID(), ttlMs: 30_000 }),
        })
      : undefined,
  };
  const shellJanitor = new ShellJanitor({
    shells: new ClusterShellStore(store.db),
    clusters: clusterStore,
    connections: clusterConnections,
    logger,
    ...(deps.shellSweepMs ? { intervalMs: deps.shellSweepMs } : {}),
  });

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (req) => requestId(req.headers['x-request-id']),
    // Bodies are validated as sent: no type coercion, no silently dropped fields.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
    frameworkErrors: handleFrameworkError,
  });
  app.decorateRequest('caller', undefined);
  // The App cache lists and watches from the moment the server is ready; until it has synced, lists go to the
  // apiserver.
  app.addHook('onReady', async () => {
    services.appEvents?.start();
    kube?.start();
    jobs.start();
    shellJanitor.start();
    services.tagPoller?.start();
  });
  app.addHook('onClose', async () => {
    services.appEvents?.stop();
    await jobs.stop();
    await shellJanitor.stop();
    await clusterConnections.close();
    await services.tagPoller?.stop();
    await kube?.stop();
    await mgmt?.client.dropConnections();
    await store.close();
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.setErrorHandler(handleError);
  const webPage = await serveWebUi(app, deps.webDist);
  app.setNotFoundHandler((request, reply) => {
    if (webPage(request, reply)) return reply;
    throw new NotFoundError(`no route for ${request.method} ${request.url.split('?')[0]}`);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'svc API', version: '0.1.0', description: 'GitOps continuous delivery for Kubernetes' },
      servers: [{ url: config.publicURL }],
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: config.sessionCookieName },
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key `svc_…`' },
          notificationToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'a registry notification token `svcrn_…` (registry notification endpoint only)',
          },
        },
      },
      security: [{ session: [] }, { apiKey: [] }],
    },
  });

  const channel = new LocalServerChannel(store.db, services.audit, { sealer, registries, secrets: secretValues });
  app.decorate('serverChannel', channel);
  app.decorate('shellJanitor', shellJanitor);
  await internalRoutes(app, {
    channel,
    operators: new OperatorAuthenticator({
      operatorToken: config.channel.operatorToken,
      serviceAccounts: config.channel.operatorServiceAccounts,
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

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // The server listens only once migrations ran (above), so readiness waits for the App cache alone: until its first
  // list, /apps answers would each go to the apiserver and a slow or unreachable cluster would fail them.
  app.get('/readyz', { schema: { hide: true } }, async () => {
    if (kube && !kube.synced)
      throw new UnavailableError('the App cache has not synced with the management cluster yet');
    return { status: 'ready' };
  });
  await mountAuthComponent(app, auth, config.publicURL, allowedOrigins(config.publicURL, config.trustedOrigins));

  await app.register(
    async (api) => {
      const jsonParser = api.getDefaultJsonParser('error', 'error');
      api.removeContentTypeParser('application/json');
      // An empty body counts as no body, so `curl -X POST -H 'content-type: application/json'` works for sync.
      api.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
        if (body === '' || (typeof body === 'string' && body.trim() === '')) done(null, undefined);
        else jsonParser(request, body as string, done);
      });

      // CSRF: a write carrying the session cookie must be same-origin JSON (src/api/csrf.ts); every such route
      // documents the 415 this can answer (403 is in every route's errors already).
      const origins = allowedOrigins(config.publicURL, config.trustedOrigins);
      api.addHook('onRoute', (route) => {
        const response = route.schema?.response as Record<string, unknown> | undefined;
        if (!response || ![route.method].flat().some((m) => isUnsafeMethod(m))) return;
        if (!('415' in response)) route.schema = { ...route.schema, response: { ...response, 415: COOKIE_WRITE_415 } };
      });

      api.addHook('onRequest', async (request) => {
        const path = request.url.split('?')[0] ?? '';
        if (readCookie(request.headers.cookie, config.sessionCookieName) !== undefined) {
          checkCookieWrite(request.method, request.headers, origins, { form: request.routeOptions.config.formPost });
        }
        if (!kube && /^\/api\/v1\/apps(\/|$)/.test(path)) throw new UnavailableError(NO_MGMT_CLUSTER_MESSAGE);
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

      // A POST without a body is an empty object, so routes that take none validate the same either way.
      api.addHook('preValidation', async (request) => {
        if (request.body === undefined && request.method !== 'GET' && request.method !== 'DELETE') request.body = {};
      });

      api.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
      await authRoutes(api, services);
      await cliLoginRoutes(api, services);
      await auditRoutes(api, services);
      await roleBindingRoutes(api, services);
      await secretStoreRoutes(api, services);
      await appStreamRoutes(api, services, { ...STREAM_DEFAULTS, ...deps.stream });
      await appRoutes(api, services);
      await appStatusRoutes(api, services);
      await appOperationRoutes(api, services);
      await appLiveRoutes(api, services);
      await adoptRoutes(api, services);
      await teamRoutes(api, services);
      await webhookRoutes(api, services);
      await incidentRoutes(api, services);
      await clusterRoutes(api, services);
      await registryRoutes(api, services);
      await healthCheckRoutes(api, services);
      await registryNotificationRoutes(api, services);
      for (const routes of deps.routes ?? []) await routes(api, services);
    },
    { prefix: '/api/v1' },
  );
  return app;
}

/** The management cluster's connection; settings that cannot be read or parsed stop the server at start. */
function connectManagement(setting: string): KubeConnection {
  try {
    return connect(managementSource(setting));
  } catch (err) {
    throw new UnavailableError(`SVC_MGMT_KUBECONFIG cannot be used: ${(err as Error).message}`, { cause: err });
  }
}
