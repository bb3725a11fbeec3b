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
 * Builds the Config from the environment, the operator flags and (outside production) generated dev secrets.
 * Throws ConfigError listing every problem found; never returns a partly valid Config.
 */
export function loadConfig({ env, flags = {}, devSecrets, cwd, requireSecrets = true }: LoadConfigInput): Config {
  const problems: string[] = [];
  const production = env['NODE_ENV'] === 'production';
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  const dataDir = dataDirOf(env, cwd);
  const cacheDir = abs(expandHome(env['SVC_CACHE_DIR'] || join(dataDir, 'cache')));
  const toolsDir = abs(expandHome(env['SVC_TOOLS_DIR'] || join(homedir(), '.cache', 'svc')));

  const address = (name: string, value: string | undefined, fallback: string): ListenAddress => {
    const parsed = parseListenAddress(value ?? fallback);
    if (!parsed) problems.push(`${name} "${value}" must be host:port or :port`);
    return parsed ?? { host: '', port: 0 };
  };
  const duration = (name: string, value: string | undefined, fallback: string, minMs: number): number => {
    const parsed = parseDuration(value ?? fallback);
    if (parsed === undefined) problems.push(`${name} "${value}" must be a duration such as 30s, 5m or 1h`);
    else if (parsed < minMs) problems.push(`${name} must be at least ${minMs} ms`);
    return parsed ?? 0;
  };

  const listen = address('SVC_LISTEN', env['SVC_LISTEN'] || undefined, ':3000');
  const publicURL = env['SVC_PUBLIC_URL'] || `http://localhost:${listen.port || 3000}`;
  const trustedOrigins = env['SVC_PUBLIC_URL'] ? [] : loopbackOrigins(listen.port || 3000);
  if (!/^https?:\/\/[^\s/]+/.test(publicURL)) problems.push(`SVC_PUBLIC_URL "${publicURL}" must be an http(s) URL`);

  const mgmtSetting = env['SVC_MGMT_KUBECONFIG'];
  // `in-cluster`: svc runs in a Pod of the management cluster and uses its ServiceAccount.
  const mgmtKubeconfig =
    mgmtSetting === 'in-cluster' ? mgmtSetting : mgmtSetting ? abs(expandHome(mgmtSetting)) : undefined;

  let database: DatabaseConfig = { kind: 'sqlite', path: join(dataDir, 'svc.db') };
  const dbURL = env['SVC_DATABASE_URL'];
  if (dbURL) {
    if (/^postgres(ql)?:\/\//.test(dbURL)) database = { kind: 'postgres', url: dbURL };
    else if (dbURL.startsWith('sqlite:')) database = { kind: 'sqlite', path: abs(dbURL.slice('sqlite:'.length)) };
    else problems.push('SVC_DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
  }

  const secret = (name: string, value: string | undefined, dev: string | undefined): string => {
    if (value) return value;
    if (!production && dev) return dev;
    if (!requireSecrets) return '';
    problems.push(`${name} is required${production ? ' in production mode' : ''}`);
    return '';
  };
  const authSecret = secret('AUTH_SECRET', env['AUTH_SECRET'], devSecrets?.authSecret);
  if (authSecret !== '' && authSecret.length < 32) problems.push('AUTH_SECRET must be at least 32 characters');
  const keyText = secret('SVC_CREDENTIALS_KEY', env['SVC_CREDENTIALS_KEY'], devSecrets?.credentialsKey);
  const credentialsKey = keyText === '' ? Buffer.alloc(0) : parseKey(keyText);
  if (keyText !== '' && !credentialsKey) {
    problems.push('SVC_CREDENTIALS_KEY must be 32 bytes, as 64 hex digits or base64');
  }

  const sessionCookieName = env['SESSION_COOKIE_NAME'] || 'better-auth.session_token';
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(sessionCookieName)) {
    problems.push('SESSION_COOKIE_NAME must be a valid cookie name');
  }
  const tagPollIntervalMs = duration('SVC_TAG_POLL_INTERVAL', env['SVC_TAG_POLL_INTERVAL'] || undefined, '5m', 1000);
  const renderMaxMiB = Number(env['SVC_RENDER_MAX_MIB'] || '64');
  if (!Number.isInteger(renderMaxMiB) || renderMaxMiB < 1 || renderMaxMiB > 4096) {
    problems.push('SVC_RENDER_MAX_MIB must be a whole number from 1 to 4096');
  }
  const checkoutMaxMiB = Number(env['SVC_CHECKOUT_MAX_MIB'] || '1024');
  if (!Number.isInteger(checkoutMaxMiB) || checkoutMaxMiB < 1 || checkoutMaxMiB > 1024 * 1024) {
    problems.push('SVC_CHECKOUT_MAX_MIB must be a whole number from 1 to 1048576');
  }
  const render: RenderLimits = {
    timeoutMs: duration('SVC_RENDER_TIMEOUT', env['SVC_RENDER_TIMEOUT'] || undefined, '2m', 1000),
    maxBytes: renderMaxMiB * 1024 * 1024,
    maxCheckoutBytes: checkoutMaxMiB * 1024 * 1024,
  };
  const scope = (env['SVC_OUTBOUND_SCOPE'] || (production ? 'private' : 'loopback')) as OutboundScope;
  if (!OUTBOUND_SCOPES.includes(scope))
    problems.push(`SVC_OUTBOUND_SCOPE must be one of ${OUTBOUND_SCOPES.join(', ')}`);
  const logLevel = env['SVC_LOG_LEVEL'] || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push('SVC_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent');
  }

  const operatorToken = env['SVC_OPERATOR_TOKEN'] || undefined;
  if (operatorToken !== undefined && operatorToken.length < 32) {
    problems.push('SVC_OPERATOR_TOKEN must be at least 32 characters');
  }
  const serviceAccounts = (env['SVC_OPERATOR_SERVICE_ACCOUNTS'] ?? DEFAULT_OPERATOR_SERVICE_ACCOUNT)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const sa of serviceAccounts) {
    if (!/^system:serviceaccount:[a-z0-9-]+:[a-z0-9.-]+$/.test(sa)) {
      problems.push(`SVC_OPERATOR_SERVICE_ACCOUNTS: "${sa}" must be system:serviceaccount:<namespace>:<name>`);
    }
  }
  const serverURL = env['SVC_SERVER_URL'] || undefined;
  if (serverURL !== undefined && !/^https?:\/\/[^\s/]+/.test(serverURL)) {
    problems.push(`SVC_SERVER_URL "${serverURL}" must be an http(s) URL`);
  }
  const channel: ChannelConfig = {
    operatorToken,
    operatorServiceAccounts: serviceAccounts,
    serverURL: serverURL?.replace(/\/+$/, ''),
    operatorTokenFile: abs(expandHome(env['SVC_OPERATOR_TOKEN_FILE'] || `${SERVICE_ACCOUNT_DIR}/token`)),
  };

  const webhookAttempts = Number(env['SVC_WEBHOOK_ATTEMPTS'] || '8');
  if (!Number.isInteger(webhookAttempts) || webhookAttempts < 1 || webhookAttempts > 20) {
    problems.push('SVC_WEBHOOK_ATTEMPTS must be a whole number from 1 to 20');
  }
  const webhookRetry: RetryPolicy = {
    baseMs: duration('SVC_WEBHOOK_RETRY_BASE', env['SVC_WEBHOOK_RETRY_BASE'] || undefined, '10s', 100),
    maxMs: duration('SVC_WEBHOOK_RETRY_MAX', env['SVC_WEBHOOK_RETRY_MAX'] || undefined, '1h', 100),
    attempts: webhookAttempts,
  };
  if (webhookRetry.maxMs < webhookRetry.baseMs) {
    problems.push('SVC_WEBHOOK_RETRY_MAX must not be shorter than SVC_WEBHOOK_RETRY_BASE');
  }
  const orgOperatorRole = env['SVC_ORG_OPERATOR_ROLE'] || undefined;
  if (orgOperatorRole !== undefined && !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(orgOperatorRole)) {
    problems.push(`SVC_ORG_OPERATOR_ROLE "${orgOperatorRole}" must be a ClusterRole name`);
  }

  const leaderElect = parseBool(flags.leaderElect ?? true);
  if (leaderElect === undefined) problems.push('--leader-elect must be true or false');
  const operator: OperatorConfig = {
    syncPeriodMs: duration('--sync-period', flags.syncPeriod, '60s', 1000),
    errorRequeueMs: 30_000,
    webhookBind: address('--webhook-bind-address', flags.webhookBindAddress, ':8082'),
    metricsBind: address('--metrics-bind-address', flags.metricsBindAddress, ':8080'),
    probeBind: address('--health-probe-bind-address', flags.healthProbeBindAddress, ':8081'),
    leaderElect: leaderElect ?? true,
    leaderElectionNamespace: flags.leaderElectionNamespace || 'kube-system',
    watchNamespace: flags.watchNamespace || undefined,
  };
  if (operator.watchNamespace !== undefined && !isDnsLabel(operator.watchNamespace)) {
    problems.push(`--watch-namespace "${operator.watchNamespace}" must be a namespace name`);
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    production,
    dataDir,
    cacheDir,
    toolsDir,
    logLevel,
    listen,
    publicURL: publicURL.replace(/\/+$/, ''),
    trustedOrigins,
    mgmtKubeconfig,
    database,
    credentialsKey: credentialsKey as Buffer,
    authSecret,
    sessionCookieName,
    tagPollIntervalMs,
    render,
    outbound: { scope, requireHttps: production },
    shellImage: env['SVC_SHELL_IMAGE'] || DEFAULT_SHELL_IMAGE,
    operator,
    channel,
    webhookRetry,
    orgOperatorRole,
  };
}
