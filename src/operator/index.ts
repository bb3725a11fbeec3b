/**
 * `startOperator`: the operator role of svc. Connects to the management cluster, starts the App informer, the
 * metrics, probe and push-receiver listeners, and leader election; reconciles while leading. With sharding, every
 * replica reconciles its share of the Apps instead (src/operator/shard/).
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { AppResource } from '../core/app-schema.ts';
import { describeError, UnavailableError } from '../core/errors.ts';
import { CelSandbox } from '../engine/health/cel/sandbox.ts';
import { OrgCheckLookup } from '../engine/health/org-checks.ts';
import type { AppKey } from '../engine/labels.ts';
import { GitTreeReader, gitGuard, RegistryLookup, type SourceDrivers, sourceDrivers } from '../engine/sources/index.ts';
import { memoryBackedDir, RepoCache } from '../git/index.ts';
import type { ServerChannel, SourceAccessRequest } from '../internal/channel.ts';
import { connect, type KubeClient, LeaderElector, managementSource, type ObjectClient } from '../kube/index.ts';
import { RegistryClient } from '../registry/index.ts';
import { RenderCache, type ToolPaths, toolPaths } from '../render/index.ts';
import { AppSetController } from './appsets/controller.ts';
import { AuditRelay, type AuditRelayOptions } from './channel/audit-relay.ts';
import { httpChannelFromConfig } from './channel/http-channel.ts';
import { Controller } from './controller.ts';
import { LiveCache } from './live/index.ts';
import { OperatorMetrics } from './metrics.ts';
import { DEFAULT_BACKOFF } from './queue.ts';
import { DEFAULT_TUNING, Reconciler, type ReconcilerTuning } from './reconciler.ts';
import { RemoteClusters } from './remote-clusters.ts';
import { close, listen, metricsServer, probeServer } from './servers.ts';
import type { ShardBy } from './shard/assign.ts';
import type { ShardMembership } from './shard/membership.ts';
import { APPSETS_SHARD_KEY, appShardKey, startSharding } from './shard/start.ts';
import { PushReceiver } from './webhook/receiver.ts';
import { WindowLookup } from './windows.ts';

/** Renders kept by the operator's render cache (one per source, revision and renderer options). */
const RENDER_CACHE_ENTRIES = 256;

export { DEFAULT_TUNING, type ReconcilerTuning } from './reconciler.ts';

/** Knobs beyond Config, mostly for tests (short periods, one watched namespace). Production uses the defaults. */
export interface OperatorOptions {
  tuning?: Partial<ReconcilerTuning>;
  /** Watch only this namespace's Apps (default: every namespace). */
  watchNamespace?: string;
  /** Leader-election Lease name (default `svc-operator`; with sharding, the shard Leases' prefix) and timings. */
  lease?: { name?: string; durationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  identity?: string;
  tools?: ToolPaths;
  rateLimit?: { burst: number; perMinute: number };
  workers?: number;
  /**
   * The server (svc start passes its own, in process). Without it, the HTTP channel of `config.channel` when
   * configured (SVC_SERVER_URL and a credential); else none: push deliveries are not audited and Apps naming a
   * registry (registryRef) wait (logged once).
   */
  serverChannel?: ServerChannel;
  /** Retries of the audit relay (tests shorten them). */
  auditRetry?: AuditRelayOptions;
  /** How often a remote cluster's record and reachability are checked again (default 5 s). */
  remoteRevalidateMs?: number;
  /** How long the org health checks fetched from the server are reused (default 30 s). */
  orgChecksTtlMs?: number;
  /** How long the org's and clusters' delivery windows fetched from the server are reused (default 30 s). */
  windowsTtlMs?: number;
  /** The clock delivery windows are read by (ms since the epoch; default Date.now): tests move it instead of waiting. */
  clock?: () => number;
  /** How often an AppSet reading Git or clusters is generated again (default 60 s). */
  appSetResyncMs?: number;
}

/** A started operator. */
export interface RunningOperator {
  /** Bound ports of the listeners (useful with port 0). */
  ports: { metrics: number; probes: number; webhook: number };
  identity: string;
  /** True while this process leads (always true without leader election; false with sharding). */
  isLeader(): boolean;
  /**
   * With sharding: the members of the membership this replica applies, and whether every member acknowledged it;
   * undefined without sharding.
   */
  shard(): { members: readonly string[]; active: boolean } | undefined;
  /** Clean shutdown: stops reconciling, releases the Lease, closes listeners. */
  stop(): Promise<void>;
  /** Crash-like shutdown for tests: stops everything without releasing the Lease. */
  kill(): Promise<void>;
}

/** Starts the operator. Throws UnavailableError when no management cluster is configured. */
export async function startOperator(
  config: Config,
  logger: Logger,
  options: OperatorOptions = {},
): Promise<RunningOperator> {
  if (!config.mgmtKubeconfig) throw new UnavailableError('the operator needs SVC_MGMT_KUBECONFIG');
  const identity = options.identity ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const log = logger.child({ identity });
  const { client, objects: mgmt } = connect(managementSource(config.mgmtKubeconfig));
  const state: Fencing = { halted: false, stopping: false, elector: undefined, shard: undefined };
  const parts = assemble({ config, options, log, identity, client, mgmt, state });
  const { controller, servers } = parts;
  const ports = {
    metrics: await listen(servers.metrics, config.operator.metricsBind),
    probes: await listen(servers.probes, config.operator.probeBind),
    webhook: await listen(servers.webhook, config.operator.webhookBind),
  };
  await controller.start();
  await parts.appSets.start();
  if (config.operator.sharding !== 'off') {
    const namespace = config.operator.leaderElectionNamespace;
    const group = options.lease?.name ?? 'svc-operator';
    const keyOf = (app: AppKey) => appShardKey(shardByOf(config), app, (key) => controller.cached(key));
    state.shard = startSharding({
      ...parts,
      client,
      namespace,
      group,
      identity,
      logger: log,
      lease: options.lease,
      keyOf,
    });
  } else if (config.operator.leaderElect) {
    state.elector = startElection(config, options, client, identity, log, parts);
  } else {
    controller.startProcessing();
    parts.appSets.startProcessing();
  }
  const sweeper = sweepRepos(parts.repos, log);
  log.info({ ports, leaderElect: config.operator.leaderElect, sharding: config.operator.sharding }, 'operator started');

  const shutdown = async (release: boolean) => {
    // A clean stop lets running reconciles finish (a staged sync's waits end at their next tick); a kill fences them
    // at their next write.
    state.stopping = true;
    if (!release) state.halted = true;
    clearInterval(sweeper);
    await parts.appSets.stopProcessing();
    await controller.stopProcessing();
    state.halted = true;
    await state.elector?.stop({ release });
    await state.shard?.stop({ release });
    await parts.appSets.stop();
    await controller.stop();
    await parts.live.stop();
    await parts.health.sandbox.stop();
    await parts.remotes?.stop();
    await Promise.all(Object.values(servers).map(close));
    await parts.audit?.drain();
    await parts.reconciler.drain();
    log.info('operator stopped');
  };
  return {
    ports,
    identity,
    isLeader: () => (state.shard ? false : state.elector ? state.elector.isLeader : true),
    shard: () => (state.shard ? { members: state.shard.members, active: state.shard.active } : undefined),
    stop: () => shutdown(true),
    kill: () => shutdown(false),
  };
}

/**
 * What decides whether this process may write: a kill halts it; with leader election, only the leader writes; with
 * sharding, only the owner of the App (or of the AppSets) writes.
 */
interface Fencing {
  halted: boolean;
  /** Set when shutdown begins: staged syncs stop waiting (see ReconcilerDeps.stopping). */
  stopping: boolean;
  elector: LeaderElector | undefined;
  shard: ShardMembership | undefined;
}

/** What Apps are sharded by (`app` also when sharding is off: then no key is asked for). */
function shardByOf(config: Config): ShardBy {
  return config.operator.sharding === 'cluster' ? 'cluster' : 'app';
}

/** Whether this process may write for the shard key `key` now (see Fencing). */
function mayWrite(state: Fencing, key: string): boolean {
  if (state.halted) return false;
  if (state.shard) return state.shard.allows(key);
  return state.elector ? state.elector.isLeader : true;
}

/** The operator's parts, wired but not started. */
interface Parts {
  repos: RepoCache;
  live: LiveCache;
  health: CustomHealth;
  remotes: RemoteClusters | undefined;
  reconciler: Reconciler;
  controller: Controller;
  appSets: AppSetController;
  audit: AuditRelay | undefined;
  metrics: OperatorMetrics;
  servers: { metrics: Server; probes: Server; webhook: Server };
}

interface AssembleInput {
  config: Config;
  options: OperatorOptions;
  log: Logger;
  identity: string;
  client: KubeClient;
  mgmt: ObjectClient;
  state: Fencing;
}

/** Wires the operator's parts: caches, the channel to the server, the reconciler, the controller, the listeners. */
function assemble(input: AssembleInput): Parts {
  const { config, options, log, identity, client, mgmt, state } = input;
  const watchNamespace = options.watchNamespace ?? config.operator.watchNamespace;
  const metrics = new OperatorMetrics();
  const repos = new RepoCache({ dir: join(config.cacheDir, 'git'), guard: gitGuard(config.outbound) });
  const tuning = tuningOf(config, options);
  let controller: Controller | undefined;
  const shardBy = config.operator.sharding === 'cluster' ? 'cluster' : 'app';
  const owns = (app: AppKey) =>
    mayWrite(
      state,
      appShardKey(shardBy, app, (key) => controller?.cached(key)),
    );
  const serverChannel = serverChannelOf(config, options, log);
  const health = customHealthOf(serverChannel, options, (key) => controller?.cached(key));
  const windows = new WindowLookup(serverChannel, options.windowsTtlMs);
  // Watch caches of the managed objects per destination; a health change of one re-queues its App at once.
  const live = new LiveCache({
    logger: log,
    onChange: (app) => controller?.enqueue(app),
    customChecked: health.customChecked,
  });
  // Registered clusters' connections, from the server's records (the operator holds no credentials of its own).
  const remotes = serverChannel
    ? new RemoteClusters({
        channel: serverChannel,
        outbound: config.outbound,
        logger: log,
        ...(options.remoteRevalidateMs ? { revalidateMs: options.remoteRevalidateMs } : {}),
      })
    : undefined;
  const reconciler = new Reconciler({
    mgmt,
    mayWrite: owns,
    stopping: () => state.stopping,
    sources: driversOf(config, options, tuning, repos, serverChannel),
    targetFor: (app) => destinationOf(mgmt, remotes, app),
    onUnreachable: (app: AppResource) =>
      remotes?.invalidate(app.metadata.namespace ?? '', app.spec.destination.cluster ?? ''),
    live,
    healthChecks: { sandbox: health.sandbox, org: (ns) => health.orgChecks.get(ns) },
    windows: (app) => windows.of(app),
    ...(options.clock ? { clock: options.clock } : {}),
    cachedApp: (key) => controller?.cached(key),
    publicURL: config.publicURL,
    outbound: config.outbound,
    identity,
    logger: log,
    metrics,
    tuning,
  });
  metrics.countRememberedWrites(() => reconciler.rememberedWrites);
  const built = new Controller({
    client,
    reconciler,
    metrics,
    logger: log,
    ...(watchNamespace ? { namespace: watchNamespace } : {}),
    ...(options.workers ? { workers: options.workers } : {}),
    backoff: { ...DEFAULT_BACKOFF, baseMs: tuning.backoffBaseMs, maxMs: tuning.errorRequeueMs },
    owns,
  });
  controller = built;
  const appSets = appSetsOf({ ...input, watchNamespace, tuning, repos, serverChannel, apps: built });
  const audit = serverChannel ? new AuditRelay(serverChannel, log, options.auditRetry) : undefined;
  const receiver = new PushReceiver({
    mgmt,
    logger: log,
    ...(audit ? { audit } : {}),
    cachedApps: () => built.apps(),
    appSets,
    ...(watchNamespace ? { namespace: watchNamespace } : {}),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
  });
  const servers = {
    metrics: metricsServer(metrics),
    probes: probeServer(() => built.synced),
    webhook: receiver.server(),
  };
  return { repos, live, health, remotes, reconciler, controller: built, appSets, audit, metrics, servers };
}

/** The AppSet controller: Apps through the App controller's cache, Git through the shared repository cache. */
function appSetsOf(
  input: AssembleInput & {
    watchNamespace: string | undefined;
    tuning: ReconcilerTuning;
    repos: RepoCache;
    serverChannel: ServerChannel | undefined;
    apps: Controller;
  },
): AppSetController {
  const { options, client, mgmt, state, serverChannel, watchNamespace } = input;
  return new AppSetController({
    client,
    mgmt,
    apps: input.apps,
    reader: new GitTreeReader({
      repos: input.repos,
      maxFetchAgeMs: Math.min(input.tuning.syncPeriodMs / 2, 15_000),
      ...(serverChannel ? { access: (r: SourceAccessRequest) => serverChannel.sourceAccess(r) } : {}),
    }),
    ...(serverChannel ? { clusters: (ns: string) => serverChannel.clusters(ns) } : {}),
    mayWrite: () => mayWrite(state, APPSETS_SHARD_KEY),
    logger: input.log.child({ controller: 'appset' }),
    ...(watchNamespace ? { namespace: watchNamespace } : {}),
    ...(options.appSetResyncMs ? { resyncMs: options.appSetResyncMs } : {}),
  });
}

/** Custom health checks: the org's from the server (cached briefly), run with the App's in one CEL sandbox. */
interface CustomHealth {
  orgChecks: OrgCheckLookup;
  sandbox: CelSandbox;
  /** Whether a custom check (the App's or its org's) applies to a kind: the live cache then keeps its status. */
  customChecked: (key: AppKey, apiVersion: string, kind: string) => boolean;
}

function customHealthOf(
  serverChannel: ServerChannel | undefined,
  options: OperatorOptions,
  cached: (key: AppKey) => AppResource | undefined,
): CustomHealth {
  const orgChecks = new OrgCheckLookup(serverChannel, options.orgChecksTtlMs);
  return {
    orgChecks,
    sandbox: new CelSandbox(),
    customChecked: (key, apiVersion, kind) => {
      const own = cached(key)?.spec.health?.checks ?? [];
      return [...own, ...orgChecks.known(key.namespace)].some((c) => c.apiVersion === apiVersion && c.kind === kind);
    },
  };
}

/** The reconciler's timing: the configured periods over the defaults, then the test's overrides. */
function tuningOf(config: Config, options: OperatorOptions): ReconcilerTuning {
  return {
    ...DEFAULT_TUNING,
    syncPeriodMs: config.operator.syncPeriodMs,
    errorRequeueMs: config.operator.errorRequeueMs,
    ...options.tuning,
  };
}

/** The channel to the server: the one passed in (svc start), else the configured HTTP one (warned when incomplete). */
function serverChannelOf(config: Config, options: OperatorOptions, log: Logger): ServerChannel | undefined {
  if (options.serverChannel) return options.serverChannel;
  const configured = httpChannelFromConfig(config.channel);
  if (configured?.missing) {
    log.warn(
      `no channel to the server: push deliveries will not be audited, SOPS decryption is unavailable, remote destinations cannot be reached and image Apps cannot use registries (set ${configured.missing})`,
    );
  }
  return configured?.channel;
}

/** The source drivers: git (shared repository cache, render cache, tools) and image (registry client). */
function driversOf(
  config: Config,
  options: OperatorOptions,
  tuning: ReconcilerTuning,
  repos: RepoCache,
  serverChannel: ServerChannel | undefined,
): SourceDrivers {
  // Checkouts that will hold decrypted SOPS files go to memory-backed storage when the host has it.
  const secretWorkDir = memoryBackedDir();
  // Registry credentials come from the server (the operator holds none), cached briefly.
  const registries = new RegistryLookup(serverChannel);
  const registryClient = new RegistryClient({ policy: config.outbound });
  const tools = { ...toolPaths(config.toolsDir), ...options.tools };
  // A reconcile without an operation reuses a fetch younger than half the sync period (at most 15 s).
  const maxFetchAgeMs = Math.min(tuning.syncPeriodMs / 2, 15_000);
  // Private repositories' credentials come from the server when a fetch runs (the operator holds none).
  const access = serverChannel ? { access: (r: SourceAccessRequest) => serverChannel.sourceAccess(r) } : {};
  return sourceDrivers({
    git: {
      repos,
      renders: new RenderCache(RENDER_CACHE_ENTRIES),
      tools,
      limits: config.render,
      maxFetchAgeMs,
      ...access,
      ...(serverChannel ? { keys: serverChannel } : {}),
      ...(secretWorkDir ? { secretWorkDir } : {}),
    },
    image: {
      client: registryClient,
      registry: (ns, name) => registries.get(ns, name),
      ...(serverChannel ? { values: serverChannel } : {}),
    },
    helmChart: {
      client: registryClient,
      policy: config.outbound,
      tools,
      limits: config.render,
      maxFetchAgeMs,
      ...access,
    },
    // Catalog templates come from the server (the operator holds no database).
    ...(serverChannel
      ? { catalog: { lookup: (ns: string, name: string, v?: number) => serverChannel.catalogTemplate(ns, name, v) } }
      : {}),
  });
}

/** The cluster an App deploys to: the management cluster, or a registered one reached through the server. */
async function destinationOf(
  mgmt: ObjectClient,
  remotes: RemoteClusters | undefined,
  app: AppResource,
): Promise<ObjectClient> {
  const cluster = app.spec.destination.cluster;
  if (!cluster) return mgmt;
  if (!remotes) {
    throw new UnavailableError(
      `destination cluster "${cluster}": the operator has no channel to the server to fetch its credentials`,
      { retry: 'wait' },
    );
  }
  return remotes.objectsFor(app.metadata.namespace ?? '', cluster, app.spec.destination.namespace);
}

/** Starts leader election: the controller reconciles while this process holds the Lease. */
function startElection(
  config: Config,
  options: OperatorOptions,
  client: KubeClient,
  identity: string,
  log: Logger,
  parts: Parts,
): LeaderElector {
  const { controller, appSets, metrics } = parts;
  const lease = options.lease;
  const elector = new LeaderElector({
    client,
    namespace: config.operator.leaderElectionNamespace,
    name: lease?.name ?? 'svc-operator',
    identity,
    ...(lease?.durationMs ? { leaseDurationMs: lease.durationMs } : {}),
    ...(lease?.renewDeadlineMs ? { renewDeadlineMs: lease.renewDeadlineMs } : {}),
    ...(lease?.retryPeriodMs ? { retryPeriodMs: lease.retryPeriodMs } : {}),
    onStartedLeading: () => {
      log.info('became leader');
      metrics.leader(true);
      controller.startProcessing();
      appSets.startProcessing();
    },
    onStoppedLeading: () => {
      log.info('no longer leader');
      metrics.leader(false);
      void controller.stopProcessing();
      void appSets.stopProcessing();
    },
    onError: (err) => log.warn({ err: describeError(err) }, 'leader election'),
  });
  elector.start();
  return elector;
}

/** Drops repositories no App fetched for a day from the cache (hourly check). */
function sweepRepos(repos: RepoCache, log: Logger): NodeJS.Timeout {
  const sweeper = setInterval(() => {
    repos
      .sweep(24 * 3_600_000)
      .catch((err: unknown) => log.warn({ err: describeError(err) }, 'git cache sweep failed'));
  }, 3_600_000);
  sweeper.unref();
  return sweeper;
}
