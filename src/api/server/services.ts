/**
 * Everything the API server runs on, built once from its settings: the database (opened and migrated with Better
 * Auth's tables under one lock), the management cluster's App client, and the services route plugins and MCP tools
 * use (ApiServices), plus the background parts the server starts and stops with itself.
 */
import { Authenticator } from '../../auth/authenticator.ts';
import { type AuthComponentOptions, createAuthComponent, migrateAuthSchema } from '../../auth/better-auth.ts';
import { BackgroundJobs } from '../../background/jobs.ts';
import type { Config } from '../../config.ts';
import { UnavailableError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { connect, type KubeConnection, managementSource } from '../../kube/index.ts';
import type { Logger } from '../../log.ts';
import { RateLimiter } from '../../net/rate-limit.ts';
import { RegistryClient } from '../../registry/index.ts';
import { Sealer } from '../../secrets/seal.ts';
import { ApiKeyStore } from '../../store/api-keys.ts';
import { AuditStore } from '../../store/audit.ts';
import { ClusterShellStore } from '../../store/cluster-shells.ts';
import { ClusterStore } from '../../store/clusters.ts';
import { openStore, type Store } from '../../store/database.ts';
import { DbLease } from '../../store/lease.ts';
import { migrateStore } from '../../store/migrations.ts';
import { orgIdOfNamespace } from '../../store/orgs.ts';
import { RegistryStore } from '../../store/registries.ts';
import { RepositoryStore } from '../../store/repositories.ts';
import { RoleBindingStore } from '../../store/role-bindings.ts';
import { AppEventHub } from '../apps/app-events.ts';
import { ClusterConnections } from '../clusters/connections.ts';
import { StoredClusterDirectory } from '../clusters/directory.ts';
import { ShellJanitor } from '../clusters/shell-janitor.ts';
import { KubeApps } from '../kube/apps-repo.ts';
import { KubeAppSets } from '../kube/appsets-repo.ts';
import { destinationsOf } from '../kube/destinations.ts';
import { OrgImages } from '../registries/images.ts';
import { TagPoller } from '../registries/tag-poller.ts';
import { RepositoryAccess } from '../repositories/access.ts';
import { SecretValueResolver } from '../secret-stores/resolver.ts';
import { DEFAULT_SECRET_STORE_TUNING, type SecretStoreTuning } from '../secret-stores/tuning.ts';
import type { ApiServices } from '../services.ts';
import type { ApiServerDeps } from './deps.ts';

/** The services plus what only the server itself holds: the management connection and the background parts. */
export interface ServerParts {
  services: ApiServices;
  mgmt: KubeConnection | undefined;
  secretValues: SecretValueResolver;
  shellJanitor: ShellJanitor;
}

/** The management cluster's connection; settings that cannot be read or parsed stop the server at start. */
function connectManagement(setting: string): KubeConnection {
  try {
    return connect(managementSource(setting));
  } catch (err) {
    throw new UnavailableError(`SVC_MGMT_KUBECONFIG cannot be used: ${(err as Error).message}`, { cause: err });
  }
}

/** The App client of the management cluster (with the org operators' access when a role is configured). */
function kubeAppsOf(mgmt: KubeConnection, config: Config, logger: Logger): KubeApps {
  const role = config.orgOperatorRole;
  return new KubeApps(mgmt.client, {
    cache: { logger },
    ...(role
      ? { orgOperatorAccess: { clusterRole: role, serviceAccounts: config.channel.operatorServiceAccounts } }
      : {}),
  });
}

/** Opens and migrates the database (svc's tables and Better Auth's, under one lock); the auth component on it. */
async function openDatabase(deps: ApiServerDeps, kube: KubeApps | undefined) {
  const { config, logger } = deps;
  const store: Store = deps.store ?? openStore(config.database);
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
  return { store, audit, auth: createAuthComponent(authOptions) };
}

/** The resolver of secret-store values and the limits of store tests, with the configured timeouts and rates. */
function secretStoresOf(deps: ApiServerDeps, store: Store, sealer: Sealer, kube?: KubeApps) {
  const tuning: SecretStoreTuning = { ...DEFAULT_SECRET_STORE_TUNING, ...deps.secretStores };
  const secretValues = new SecretValueResolver({
    db: store.db,
    sealer,
    outbound: deps.config.outbound,
    timeoutMs: tuning.timeoutMs,
    kube,
    fetchLimiter: new RateLimiter(tuning.fetch),
  });
  return { secretStoreTests: { limiter: new RateLimiter(tuning.test), timeoutMs: tuning.timeoutMs }, secretValues };
}

/** Builds every service of the server (see the module comment). */
export async function buildServerParts(deps: ApiServerDeps): Promise<ServerParts> {
  const { config, logger } = deps;
  // One connection to the management cluster: the App cache, App writes and the TokenReviews of the internal routes.
  const mgmt = config.mgmtKubeconfig ? connectManagement(config.mgmtKubeconfig) : undefined;
  const kube = mgmt ? kubeAppsOf(mgmt, config, logger) : undefined;
  const { store, audit, auth } = await openDatabase(deps, kube);
  const apiKeys = new ApiKeyStore(store.db);
  const bindings = new RoleBindingStore(store.db);
  const sealer = new Sealer(config.credentialsKey);
  const clusterConnections = new ClusterConnections(sealer, {
    outbound: config.outbound,
    ...(deps.inCluster ? { inCluster: deps.inCluster } : {}),
  });
  const clusterStore = new ClusterStore(store.db);
  const clusters = new StoredClusterDirectory(clusterStore, clusterConnections);
  const { secretStoreTests, secretValues } = secretStoresOf(deps, store, sealer, kube);
  const registries = new RegistryStore(store.db, sealer);
  const images = new OrgImages(registries, new RegistryClient({ policy: config.outbound }));
  const repositories = new RepositoryStore(store.db, sealer);
  const authenticator = new Authenticator({
    db: store.db,
    apiKeys,
    bindings,
    authSecret: config.authSecret,
    sessionCookieName: config.sessionCookieName,
  });
  const services: ApiServices = {
    config,
    logger,
    store,
    apiKeys,
    audit,
    bindings,
    authenticator,
    kube,
    appSets: mgmt ? new KubeAppSets(mgmt.client) : undefined,
    appEvents: kube ? new AppEventHub(kube) : undefined,
    clusters,
    destinations: destinationsOf(mgmt, clusters),
    sealer,
    auth,
    jobs: new BackgroundJobs({ db: store.db, config, sealer, logger, kube }),
    clusterConnections,
    secretStoreTests,
    registries,
    repositories,
    sourceAccess: new RepositoryAccess(store.db, repositories, registries),
    images,
    tagPoller: kube ? tagPollerOf(kube, store, images, audit, config, logger) : undefined,
  };
  const shellJanitor = new ShellJanitor({
    shells: new ClusterShellStore(store.db),
    clusters: clusterStore,
    connections: clusterConnections,
    logger,
    ...(deps.shellSweepMs ? { intervalMs: deps.shellSweepMs } : {}),
  });
  return { services, mgmt, secretValues, shellJanitor };
}

/** The tag poller of Follow Apps: one among the replicas sharing this database. */
function tagPollerOf(
  kube: KubeApps,
  store: Store,
  images: OrgImages,
  audit: AuditStore,
  config: Config,
  logger: Logger,
) {
  return new TagPoller({
    kube,
    orgOf: (namespace) => orgIdOfNamespace(store.db, namespace),
    images,
    audit,
    logger,
    intervalMs: config.tagPollIntervalMs,
    lease: new DbLease(store.db, { name: 'tag-poller', holder: crypto.randomUUID(), ttlMs: 30_000 }),
  });
}

/** Starts the background parts once the server is ready and stops them (then the connections) when it closes. */
export function runWithServer(
  app: { addHook(name: 'onReady' | 'onClose', hook: () => Promise<void>): unknown },
  parts: ServerParts,
): void {
  const { services, shellJanitor, mgmt } = parts;
  // The App cache lists and watches from the moment the server is ready; until it has synced, lists go to the
  // apiserver.
  app.addHook('onReady', async () => {
    services.appEvents?.start();
    services.kube?.start();
    services.jobs.start();
    shellJanitor.start();
    services.tagPoller?.start();
  });
  app.addHook('onClose', async () => {
    services.appEvents?.stop();
    await services.jobs.stop();
    await shellJanitor.stop();
    await services.clusterConnections.close();
    await services.tagPoller?.stop();
    await services.kube?.stop();
    await mgmt?.client.dropConnections();
    await services.store.close();
  });
}
