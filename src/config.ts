/**
 * Every setting of svc, parsed and validated once at start. This is the only module that reads the environment
 * (through the `env` argument); everything else receives a `Config` through its constructor. All problems are
 * reported together in one ConfigError.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { RetryPolicy } from './core/backoff.ts';
import { parseDuration } from './core/duration.ts';
import { ConfigError } from './core/errors.ts';
import { isDnsLabel } from './core/names.ts';
import { SERVICE_ACCOUNT_DIR } from './kube/in-cluster.ts';
import { OUTBOUND_SCOPES, type OutboundScope } from './net/addresses.ts';
import type { OutboundPolicy } from './net/guard.ts';
import type { RenderLimits } from './render/limits.ts';

/** A listen address: host '' means all interfaces; port 0 means any free port. */
export interface ListenAddress {
  host: string;
  port: number;
}

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface OperatorConfig {
  /** Resync period for every App (`--sync-period`, default 60 s). */
  syncPeriodMs: number;
  /** Requeue delay after a failed reconcile (30 s). */
  errorRequeueMs: number;
  /** Push receiver (`--webhook-bind-address`, default :8082). */
  webhookBind: ListenAddress;
  /** Prometheus metrics (`--metrics-bind-address`, default :8080). */
  metricsBind: ListenAddress;
  /** /healthz and /readyz (`--health-probe-bind-address`, default :8081). */
  probeBind: ListenAddress;
  /** Leader election on a Lease (`--leader-elect`, default on). */
  leaderElect: boolean;
  /** Namespace of the leader-election Lease (`--leader-election-namespace`, default kube-system). */
  leaderElectionNamespace: string;
  /** Reconcile only the Apps of this namespace (`--watch-namespace`); undefined = every namespace (the default). */
  watchNamespace: string | undefined;
  /**
   * Sharding between operator replicas (`--sharding` / SVC_OPERATOR_SHARDING): `off` (the default: one leader
   * reconciles everything), `app` (each App to one replica) or `cluster` (all Apps of one destination cluster to one
   * replica). On, it replaces leader election; the shard Leases live in the leader-election namespace.
   */
  sharding: 'off' | 'app' | 'cluster';
}

/**
 * The internal channel from the operator to the server (docs/compatibility.md, "Internal channel"): the server
 * accepts the operator's credential on /internal/*; the operator, when run alone, calls the server with it.
 */
export interface ChannelConfig {
  /** Shared secret the operator presents and the server accepts (SVC_OPERATOR_TOKEN, at least 32 characters). */
  operatorToken: string | undefined;
  /** ServiceAccount usernames accepted after a TokenReview (SVC_OPERATOR_SERVICE_ACCOUNTS, comma-separated). */
  operatorServiceAccounts: string[];
  /** Where `svc operator` reaches the server (SVC_SERVER_URL); unset = the operator has no channel. */
  serverURL: string | undefined;
  /** ServiceAccount token file the operator presents when no shared secret is set (SVC_OPERATOR_TOKEN_FILE). */
  operatorTokenFile: string;
}

/** The operator's ServiceAccount the server accepts by default (namespace svc-system, name svc-operator). */
export const DEFAULT_OPERATOR_SERVICE_ACCOUNT = 'system:serviceaccount:svc-system:svc-operator';

export interface Config {
  /** Production mode (NODE_ENV=production): no generated dev secrets, https-only secret-store addresses. */
  production: boolean;
  /** Where the embedded default keeps its database, dev secrets and caches (SVC_DATA_DIR, default ./.svc). */
  dataDir: string;
  /** Cache for git mirrors (SVC_CACHE_DIR, default <dataDir>/cache). */
  cacheDir: string;
  /** Where pinned kustomize/helm builds live (SVC_TOOLS_DIR, default ~/.cache/svc); PATH is the fallback. */
  toolsDir: string;
  logLevel: string;
  /** API, auth and UI address (SVC_LISTEN, default :3000). */
  listen: ListenAddress;
  /** Public base URL of the API/UI, used in links and by the auth component (SVC_PUBLIC_URL). */
  publicURL: string;
  /**
   * Further origins the auth component accepts requests from (its CSRF check). With SVC_PUBLIC_URL unset, the
   * public URL is `http://localhost:<port>` and a browser may as well open `http://127.0.0.1:<port>` or
   * `http://[::1]:<port>`: every loopback spelling of the listen port is trusted. Empty when SVC_PUBLIC_URL is set.
   */
  trustedOrigins: string[];
  /**
   * Admin kubeconfig of the management cluster (SVC_MGMT_KUBECONFIG): an absolute path, or `in-cluster` for the
   * Pod's ServiceAccount; unset = no cluster, /apps answer 503.
   */
  mgmtKubeconfig: string | undefined;
  database: DatabaseConfig;
  /** 32-byte key sealing stored credentials (SVC_CREDENTIALS_KEY, base64 or hex). */
  credentialsKey: Buffer;
  /** Secret signing session cookies; must equal the platform app's (AUTH_SECRET). */
  authSecret: string;
  /** Session cookie name (SESSION_COOKIE_NAME, default better-auth.session_token). */
  sessionCookieName: string;
  /** Image tag poller interval (SVC_TAG_POLL_INTERVAL, default 5m). */
  tagPollIntervalMs: number;
  /**
   * Bounds of one render (SVC_RENDER_TIMEOUT, default 2m; SVC_RENDER_MAX_MIB, default 64; SVC_CHECKOUT_MAX_MIB,
   * default 1024): src/render/limits.ts.
   */
  render: RenderLimits;
  /**
   * Where svc may call on a user's behalf (secret stores, registries, webhooks): SVC_OUTBOUND_SCOPE, default
   * `private` in production and `loopback` otherwise; https required in production (src/net/addresses.ts).
   */
  outbound: OutboundPolicy;
  /** Image of shell pods on registered clusters, with kubectl and bash (SVC_SHELL_IMAGE). */
  shellImage: string;
  operator: OperatorConfig;
  channel: ChannelConfig;
  /**
   * Retries of outbound webhook deliveries (docs/webhooks.md): SVC_WEBHOOK_RETRY_BASE (default 10s, doubling),
   * SVC_WEBHOOK_RETRY_MAX (1h), SVC_WEBHOOK_ATTEMPTS (8 in all).
   */
  webhookRetry: RetryPolicy;
  /**
   * ClusterRole the server binds to the operator's ServiceAccounts in each org namespace it creates
   * (SVC_ORG_OPERATOR_ROLE; the chart sets it); undefined = none (the operator's own kubeconfig decides).
   */
  orgOperatorRole: string | undefined;
}

/** Default shell-pod image: Kubernetes' own kubectl image (Debian base, with bash). */
export const DEFAULT_SHELL_IMAGE = 'registry.k8s.io/kubectl:v1.35.4';

/** Operator command-line flags, as parsed by the CLI (strings as typed; undefined when absent). */
export interface OperatorFlags {
  syncPeriod?: string;
  webhookBindAddress?: string;
  metricsBindAddress?: string;
  healthProbeBindAddress?: string;
  leaderElect?: string | boolean;
  leaderElectionNamespace?: string;
  watchNamespace?: string;
  sharding?: string;
}

/** Secrets generated for the embedded default (never used in production mode). */
export interface DevSecrets {
  authSecret: string;
  credentialsKey: string;
}

export interface LoadConfigInput {
  env: Record<string, string | undefined>;
  flags?: OperatorFlags;
  /** Generated development secrets, used only when the variables are unset and not in production. */
  devSecrets?: DevSecrets;
  /** Directory relative paths resolve against (default process.cwd() of the caller). */
  cwd: string;
  /**
   * Whether AUTH_SECRET and SVC_CREDENTIALS_KEY must be present (default true). The operator alone signs no
   * sessions and opens no sealed credentials, so `svc operator` runs without them (they are then empty).
   */
  requireSecrets?: boolean;
}

export { parseDuration };

/** Parses `host:port`, `:port` or `[v6]:port`. Undefined when invalid. */
export function parseListenAddress(text: string): ListenAddress | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]*):(\d{1,5})$/.exec(text.trim());
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port };
}

function parseKey(text: string): Buffer | undefined {
  const hex = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : undefined;
  const b64 = hex ?? Buffer.from(text, 'base64');
  return b64.length === 32 ? b64 : undefined;
}

function parseBool(text: string | boolean): boolean | undefined {
  if (typeof text === 'boolean') return text;
  if (['true', '1', 'yes', 'on'].includes(text.toLowerCase())) return true;
  if (['false', '0', 'no', 'off'].includes(text.toLowerCase())) return false;
  return undefined;
}

function expandHome(p: string): string {
  return p.startsWith('~/') ? join(homedir(), p.slice(2)) : p;
}

/** The origins of a local listener on `port`, one per loopback spelling (localhost, 127.0.0.1, [::1]). */
export function loopbackOrigins(port: number): string[] {
  return ['localhost', '127.0.0.1', '[::1]'].map((host) => `http://${host}:${port}`);
}

/** The data directory of the embedded default: SVC_DATA_DIR, else `.svc` under `cwd`. */
export function dataDirOf(env: Record<string, string | undefined>, cwd: string): string {
  return resolve(cwd, expandHome(env['SVC_DATA_DIR'] || '.svc'));
}

/**
 * What parsing the settings needs throughout: the environment, where relative paths start, and the problems found
 * so far (all reported together at the end).
 */
class Reader {
  readonly env: Record<string, string | undefined>;
  readonly problems: string[] = [];
  readonly #cwd: string;

  constructor(env: Record<string, string | undefined>, cwd: string) {
    this.env = env;
    this.#cwd = cwd;
  }

  /** The variable `name`, undefined when unset or empty. */
  get(name: string): string | undefined {
    return this.env[name] || undefined;
  }

  problem(text: string): void {
    this.problems.push(text);
  }

  /** `p` (with `~/` expanded) as an absolute path, relative ones from the working directory. */
  path(p: string): string {
    const expanded = expandHome(p);
    return isAbsolute(expanded) ? expanded : resolve(this.#cwd, expanded);
  }

  address(name: string, value: string | undefined, fallback: string): ListenAddress {
    const parsed = parseListenAddress(value ?? fallback);
    if (!parsed) this.problem(`${name} "${value}" must be host:port or :port`);
    return parsed ?? { host: '', port: 0 };
  }

  duration(name: string, value: string | undefined, fallback: string, minMs: number): number {
    const parsed = parseDuration(value ?? fallback);
    if (parsed === undefined) this.problem(`${name} "${value}" must be a duration such as 30s, 5m or 1h`);
    else if (parsed < minMs) this.problem(`${name} must be at least ${minMs} ms`);
    return parsed ?? 0;
  }

  /** The variable `name` as a whole number from `min` to `max` (`fallback` when unset). */
  wholeNumber(name: string, fallback: number, min: number, max: number): number {
    const value = Number(this.get(name) ?? String(fallback));
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problem(`${name} must be a whole number from ${min} to ${max}`);
    }
    return value;
  }
}

/**
 * Builds the Config from the environment, the operator flags and (outside production) generated dev secrets.
 * Throws ConfigError listing every problem found; never returns a partly valid Config.
 */
export function loadConfig({ env, flags = {}, devSecrets, cwd, requireSecrets = true }: LoadConfigInput): Config {
  const read = new Reader(env, cwd);
  const production = env['NODE_ENV'] === 'production';
  const dataDir = dataDirOf(env, cwd);
  // Parsed in the order the problems are reported.
  const listen = read.address('SVC_LISTEN', read.get('SVC_LISTEN'), ':3000');
  const publicURL = read.get('SVC_PUBLIC_URL') ?? `http://localhost:${listen.port || 3000}`;
  if (!/^https?:\/\/[^\s/]+/.test(publicURL)) read.problem(`SVC_PUBLIC_URL "${publicURL}" must be an http(s) URL`);
  const database = databaseOf(read, dataDir);
  const secrets = secretsOf(read, production, requireSecrets, devSecrets);
  const sessionCookieName = sessionCookieOf(read);
  const tagPollIntervalMs = read.duration('SVC_TAG_POLL_INTERVAL', read.get('SVC_TAG_POLL_INTERVAL'), '5m', 1000);
  const render = renderLimitsOf(read);
  const scope = (read.get('SVC_OUTBOUND_SCOPE') ?? (production ? 'private' : 'loopback')) as OutboundScope;
  if (!OUTBOUND_SCOPES.includes(scope)) read.problem(`SVC_OUTBOUND_SCOPE must be one of ${OUTBOUND_SCOPES.join(', ')}`);
  const config: Config = {
    production,
    dataDir,
    cacheDir: read.path(read.get('SVC_CACHE_DIR') ?? join(dataDir, 'cache')),
    toolsDir: read.path(read.get('SVC_TOOLS_DIR') ?? join(homedir(), '.cache', 'svc')),
    logLevel: logLevelOf(read),
    listen,
    publicURL: publicURL.replace(/\/+$/, ''),
    trustedOrigins: read.get('SVC_PUBLIC_URL') ? [] : loopbackOrigins(listen.port || 3000),
    mgmtKubeconfig: mgmtKubeconfigOf(read),
    database,
    ...secrets,
    sessionCookieName,
    tagPollIntervalMs,
    render,
    outbound: { scope, requireHttps: production },
    shellImage: read.get('SVC_SHELL_IMAGE') ?? DEFAULT_SHELL_IMAGE,
    channel: channelOf(read),
    webhookRetry: webhookRetryOf(read),
    orgOperatorRole: orgOperatorRoleOf(read),
    operator: operatorOf(read, flags),
  };
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

/** SVC_MGMT_KUBECONFIG: an absolute path, or `in-cluster` (svc runs in a Pod there and uses its ServiceAccount). */
function mgmtKubeconfigOf(read: Reader): string | undefined {
  const setting = read.get('SVC_MGMT_KUBECONFIG');
  if (setting === 'in-cluster') return setting;
  return setting ? read.path(setting) : undefined;
}

/** SVC_DATABASE_URL: PostgreSQL, or a SQLite file (default `<dataDir>/svc.db`). */
function databaseOf(read: Reader, dataDir: string): DatabaseConfig {
  const url = read.get('SVC_DATABASE_URL');
  if (!url) return { kind: 'sqlite', path: join(dataDir, 'svc.db') };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', url };
  if (url.startsWith('sqlite:')) return { kind: 'sqlite', path: read.path(url.slice('sqlite:'.length)) };
  read.problem('SVC_DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
  return { kind: 'sqlite', path: join(dataDir, 'svc.db') };
}

/** AUTH_SECRET and SVC_CREDENTIALS_KEY: set, else (outside production) the generated dev secrets. */
function secretsOf(
  read: Reader,
  production: boolean,
  requireSecrets: boolean,
  dev: DevSecrets | undefined,
): { authSecret: string; credentialsKey: Buffer } {
  const secret = (name: string, devValue: string | undefined): string => {
    const value = read.get(name);
    if (value) return value;
    if (!production && devValue) return devValue;
    if (requireSecrets) read.problem(`${name} is required${production ? ' in production mode' : ''}`);
    return '';
  };
  const authSecret = secret('AUTH_SECRET', dev?.authSecret);
  if (authSecret !== '' && authSecret.length < 32) read.problem('AUTH_SECRET must be at least 32 characters');
  const keyText = secret('SVC_CREDENTIALS_KEY', dev?.credentialsKey);
  const credentialsKey = keyText === '' ? Buffer.alloc(0) : parseKey(keyText);
  if (!credentialsKey) read.problem('SVC_CREDENTIALS_KEY must be 32 bytes, as 64 hex digits or base64');
  return { authSecret, credentialsKey: credentialsKey ?? Buffer.alloc(0) };
}

/** SESSION_COOKIE_NAME (default better-auth.session_token). */
function sessionCookieOf(read: Reader): string {
  const name = read.get('SESSION_COOKIE_NAME') ?? 'better-auth.session_token';
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) read.problem('SESSION_COOKIE_NAME must be a valid cookie name');
  return name;
}

/** SVC_RENDER_TIMEOUT, SVC_RENDER_MAX_MIB and SVC_CHECKOUT_MAX_MIB. */
function renderLimitsOf(read: Reader): RenderLimits {
  const renderMaxMiB = read.wholeNumber('SVC_RENDER_MAX_MIB', 64, 1, 4096);
  const checkoutMaxMiB = read.wholeNumber('SVC_CHECKOUT_MAX_MIB', 1024, 1, 1024 * 1024);
  return {
    timeoutMs: read.duration('SVC_RENDER_TIMEOUT', read.get('SVC_RENDER_TIMEOUT'), '2m', 1000),
    maxBytes: renderMaxMiB * 1024 * 1024,
    maxCheckoutBytes: checkoutMaxMiB * 1024 * 1024,
  };
}

/** SVC_LOG_LEVEL (default info). */
function logLevelOf(read: Reader): string {
  const level = read.get('SVC_LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) {
    read.problem('SVC_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent');
  }
  return level;
}

/** The internal channel: SVC_OPERATOR_TOKEN, SVC_OPERATOR_SERVICE_ACCOUNTS, SVC_SERVER_URL, SVC_OPERATOR_TOKEN_FILE. */
function channelOf(read: Reader): ChannelConfig {
  const operatorToken = read.get('SVC_OPERATOR_TOKEN');
  if (operatorToken !== undefined && operatorToken.length < 32) {
    read.problem('SVC_OPERATOR_TOKEN must be at least 32 characters');
  }
  const serviceAccounts = (read.env['SVC_OPERATOR_SERVICE_ACCOUNTS'] ?? DEFAULT_OPERATOR_SERVICE_ACCOUNT)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const sa of serviceAccounts) {
    if (!/^system:serviceaccount:[a-z0-9-]+:[a-z0-9.-]+$/.test(sa)) {
      read.problem(`SVC_OPERATOR_SERVICE_ACCOUNTS: "${sa}" must be system:serviceaccount:<namespace>:<name>`);
    }
  }
  const serverURL = read.get('SVC_SERVER_URL');
  if (serverURL !== undefined && !/^https?:\/\/[^\s/]+/.test(serverURL)) {
    read.problem(`SVC_SERVER_URL "${serverURL}" must be an http(s) URL`);
  }
  return {
    operatorToken,
    operatorServiceAccounts: serviceAccounts,
    serverURL: serverURL?.replace(/\/+$/, ''),
    operatorTokenFile: read.path(read.get('SVC_OPERATOR_TOKEN_FILE') ?? `${SERVICE_ACCOUNT_DIR}/token`),
  };
}

/** SVC_WEBHOOK_RETRY_BASE, SVC_WEBHOOK_RETRY_MAX and SVC_WEBHOOK_ATTEMPTS. */
function webhookRetryOf(read: Reader): RetryPolicy {
  const retry: RetryPolicy = {
    baseMs: read.duration('SVC_WEBHOOK_RETRY_BASE', read.get('SVC_WEBHOOK_RETRY_BASE'), '10s', 100),
    maxMs: read.duration('SVC_WEBHOOK_RETRY_MAX', read.get('SVC_WEBHOOK_RETRY_MAX'), '1h', 100),
    attempts: read.wholeNumber('SVC_WEBHOOK_ATTEMPTS', 8, 1, 20),
  };
  if (retry.maxMs < retry.baseMs) read.problem('SVC_WEBHOOK_RETRY_MAX must not be shorter than SVC_WEBHOOK_RETRY_BASE');
  return retry;
}

/** SVC_ORG_OPERATOR_ROLE: a ClusterRole name, or undefined. */
function orgOperatorRoleOf(read: Reader): string | undefined {
  const role = read.get('SVC_ORG_OPERATOR_ROLE');
  if (role !== undefined && !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(role)) {
    read.problem(`SVC_ORG_OPERATOR_ROLE "${role}" must be a ClusterRole name`);
  }
  return role;
}

/** `--sharding`, else SVC_OPERATOR_SHARDING: off, app or cluster. */
function shardingOf(read: Reader, flags: OperatorFlags): OperatorConfig['sharding'] {
  const value = flags.sharding || read.get('SVC_OPERATOR_SHARDING') || 'off';
  if (value === 'off' || value === 'app' || value === 'cluster') return value;
  read.problem(`--sharding / SVC_OPERATOR_SHARDING "${value}" must be off, app or cluster`);
  return 'off';
}

/** The operator's flags. */
function operatorOf(read: Reader, flags: OperatorFlags): OperatorConfig {
  const leaderElect = parseBool(flags.leaderElect ?? true);
  if (leaderElect === undefined) read.problem('--leader-elect must be true or false');
  const watchNamespace = flags.watchNamespace || undefined;
  if (watchNamespace !== undefined && !isDnsLabel(watchNamespace)) {
    read.problem(`--watch-namespace "${watchNamespace}" must be a namespace name`);
  }
  return {
    syncPeriodMs: read.duration('--sync-period', flags.syncPeriod, '60s', 1000),
    errorRequeueMs: 30_000,
    webhookBind: read.address('--webhook-bind-address', flags.webhookBindAddress, ':8082'),
    metricsBind: read.address('--metrics-bind-address', flags.metricsBindAddress, ':8080'),
    probeBind: read.address('--health-probe-bind-address', flags.healthProbeBindAddress, ':8081'),
    leaderElect: leaderElect ?? true,
    leaderElectionNamespace: flags.leaderElectionNamespace || 'kube-system',
    watchNamespace,
    sharding: shardingOf(read, flags),
  };
}
