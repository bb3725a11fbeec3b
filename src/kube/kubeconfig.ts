/**
 * Reads a kubeconfig (YAML, as kubectl writes it) into the connection settings of its current context (or a named
 * one). Supported: `server`, `certificate-authority(-data)`, `insecure-skip-tls-verify`, `tls-server-name`,
 * `proxy-url` (http:// and https:// proxies), `client-certificate(-data)`/`client-key(-data)`, `token`, `tokenFile`
 * (re-read every minute), `username`/`password`, impersonation (`as`, `as-uid`, `as-groups`, `as-user-extra`) and
 * `exec` plugins (./exec-credential.ts). Refused with a clear error: `auth-provider` (removed from Kubernetes'
 * clients; use an exec plugin), socks proxies, and in an untrusted kubeconfig (one given to svc by a user) any local
 * file reference or exec plugin. One file, one context: `KUBECONFIG` lists of several files are not merged.
 * Errors name the file, context, entry and field; never a credential's value.
 */
import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { Credentials, type DynamicCredential, TokenFile } from './credentials.ts';
import { KubeconfigError } from './errors.ts';
import { EXEC_API_VERSIONS, type ExecClusterInfo, type ExecConfig, ExecPlugin } from './exec-credential.ts';

/** Everything a client needs to reach one API server. */
export interface ClusterConfig {
  /** Where the settings came from, for messages: `kubeconfig /p (context "x")` or `in-cluster`. */
  origin: string;
  server: URL;
  /** CA bundle (PEM) that verifies the server; undefined means the system's roots. */
  ca?: string;
  insecureSkipVerify: boolean;
  /** Name checked against the server's certificate instead of the URL's host (`tls-server-name`). */
  serverName?: string;
  /** An http:// or https:// proxy reached with CONNECT. */
  proxyUrl?: URL;
  credentials: Credentials;
  /**
   * Resolves host names for connections (default the system's): a caller that must refuse some addresses (the
   * outbound policy of src/net, for clusters users register) passes a guarded lookup.
   */
  lookup?: LookupFunction;
}

/** How to read a kubeconfig. */
export interface KubeconfigOptions {
  /** The context to use; default the kubeconfig's `current-context`. */
  context?: string;
  /**
   * Whether the kubeconfig may reference local files (certificate, key, CA, token file) and run exec plugins. True
   * for svc's own kubeconfig; keep false for one a user gave svc (it would read svc's files or run commands).
   */
  trusted?: boolean;
}

type Map_ = Record<string, unknown>;

/** Reads and parses the kubeconfig at `path` (trusted: it is svc's own). Throws KubeconfigError. */
export function loadKubeconfigFile(path: string, options: Omit<KubeconfigOptions, 'trusted'> = {}): ClusterConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`kubeconfig ${path} cannot be read: ${(err as Error).message}`, { cause: err });
  }
  return parseKubeconfig(text, { ...options, trusted: true, path });
}

/**
 * Parses kubeconfig text. `path` (when it came from a file) names it in errors and anchors relative file paths
 * (as kubectl does); without it relative paths are resolved from the working directory. Throws KubeconfigError.
 */
export function parseKubeconfig(text: string, options: KubeconfigOptions & { path?: string } = {}): ClusterConfig {
  const reader = new Reader(options.path ? `kubeconfig ${options.path}` : 'kubeconfig', options);
  return reader.read(text);
}

class Reader {
  #where: string;
  readonly #trusted: boolean;
  readonly #base: string;
  readonly #options: KubeconfigOptions & { path?: string };

  constructor(where: string, options: KubeconfigOptions & { path?: string }) {
    this.#where = where;
    this.#options = options;
    this.#trusted = options.trusted ?? false;
    this.#base = options.path ? dirname(resolve(options.path)) : process.cwd();
  }

  read(text: string): ClusterConfig {
    const doc = parseDocument(text);
    const first = doc.errors[0];
    if (first) {
      // The parser's message quotes the offending source line, which may hold a credential: position only.
      const at = first.linePos?.[0];
      throw this.#fail(`is not valid YAML${at ? ` (line ${at.line}, column ${at.col})` : ''}`);
    }
    const root = doc.toJS() as unknown;
    if (!isMap(root)) throw this.#fail('is not a kubeconfig (expected a mapping with clusters, users and contexts)');
    if (root['kind'] !== undefined && root['kind'] !== 'Config') {
      throw this.#fail(`has kind ${JSON.stringify(root['kind'])}, expected Config`);
    }
    const contextName = this.#options.context ?? optString(root, 'current-context', 'current-context', this.#where);
    if (!contextName) throw this.#fail('has no current-context (and no context was named)');
    const context = this.#entry(root, 'contexts', 'context', contextName);
    this.#where = `${this.#where} (context ${JSON.stringify(contextName)})`;
    const clusterName = optString(context, 'cluster', 'context.cluster', this.#where);
    if (!clusterName) throw this.#fail('names no cluster');
    const cluster = this.#entry(root, 'clusters', 'cluster', clusterName);
    const userName = optString(context, 'user', 'context.user', this.#where);
    const user = userName ? this.#entry(root, 'users', 'user', userName) : {};
    return this.#config(cluster, `cluster ${JSON.stringify(clusterName)}`, user, `user ${JSON.stringify(userName)}`);
  }

  #config(cluster: Map_, clusterWhat: string, user: Map_, userWhat: string): ClusterConfig {
    const field = (name: string) => `${clusterWhat}: ${name}`;
    const serverText = optString(cluster, 'server', field('server'), this.#where);
    if (!serverText) throw this.#fail(`${clusterWhat} has no server`);
    const server = this.#url(serverText, field('server'));
    if (server.protocol !== 'https:' && server.protocol !== 'http:') {
      throw this.#fail(`${field('server')} must be an https:// (or http://) URL`);
    }
    const insecureSkipVerify = optBool(cluster, 'insecure-skip-tls-verify', field('insecure-skip-tls-verify'), this);
    const ca = this.#pem(cluster, 'certificate-authority', field('certificate-authority'), 'CERTIFICATE');
    if (ca && insecureSkipVerify) {
      throw this.#fail(`${clusterWhat} sets both a certificate authority and insecure-skip-tls-verify; keep one`);
    }
    const serverName = optString(cluster, 'tls-server-name', field('tls-server-name'), this.#where);
    const proxyText = optString(cluster, 'proxy-url', field('proxy-url'), this.#where);
    const proxyUrl = proxyText ? this.#proxy(proxyText, field('proxy-url')) : undefined;
    const execCluster: ExecClusterInfo = {
      server: serverText,
      ...(serverName ? { 'tls-server-name': serverName } : {}),
      ...(insecureSkipVerify ? { 'insecure-skip-tls-verify': true } : {}),
      ...(ca ? { 'certificate-authority-data': Buffer.from(ca).toString('base64') } : {}),
      ...(proxyText ? { 'proxy-url': proxyText } : {}),
      ...execExtension(cluster),
    };
    return {
      origin: this.#where,
      server,
      ...(ca ? { ca } : {}),
      insecureSkipVerify,
      ...(serverName ? { serverName } : {}),
      ...(proxyUrl ? { proxyUrl } : {}),
      credentials: this.#credentials(user, userWhat, execCluster),
    };
  }

  /** A proxy URL: http or https. */
  #proxy(text: string, what: string): URL {
    const url = this.#url(text, what);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw this.#fail(`${what}: ${url.protocol.slice(0, -1)} proxies are not supported (http and https are)`);
    }
    return url;
  }

  #credentials(user: Map_, what: string, cluster: ExecClusterInfo): Credentials {
    const field = (name: string) => `${what}: ${name}`;
    if (user['auth-provider'] !== undefined) {
      const name = isMap(user['auth-provider']) ? user['auth-provider']['name'] : undefined;
      throw this.#fail(
        `${what} uses auth-provider ${JSON.stringify(name ?? '')}, which svc does not support (Kubernetes' clients ` +
          'removed it): use an exec credential plugin instead (e.g. gke-gcloud-auth-plugin, kubelogin)',
      );
    }
    const headers = { ...this.#authHeaders(user, what), ...this.#impersonation(user, what) };
    const cert = this.#pem(user, 'client-certificate', field('client-certificate'), 'CERTIFICATE');
    const key = this.#pem(user, 'client-key', field('client-key'), 'PRIVATE KEY');
    if (Boolean(cert) !== Boolean(key)) {
      throw this.#fail(`${what} has a client ${cert ? 'certificate without a key' : 'key without a certificate'}`);
    }
    const dynamic = this.#dynamic(user, what, cluster);
    return new Credentials({
      headers,
      ...(cert && key ? { cert, key } : {}),
      ...(dynamic ? { dynamic } : {}),
    });
  }

  /** The Authorization header of a static token or username/password (one method at most). */
  #authHeaders(user: Map_, what: string): Record<string, string> {
    const field = (name: string) => `${what}: ${name}`;
    const token = optString(user, 'token', field('token'), this.#where);
    const tokenFile = optString(user, 'tokenFile', field('tokenFile'), this.#where);
    const username = optString(user, 'username', field('username'), this.#where);
    const password = optString(user, 'password', field('password'), this.#where);
    if (token && tokenFile) throw this.#fail(`${what} sets both token and tokenFile; keep one`);
    if ((token || tokenFile) && (username || password)) {
      throw this.#fail(`${what} sets both a token and username/password; keep one authentication method`);
    }
    if (username || password) {
      return { Authorization: `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}` };
    }
    return token ? { Authorization: `Bearer ${token}` } : {};
  }

  /** A credential read anew when it changes: a token file, or an exec plugin (only from a trusted kubeconfig). */
  #dynamic(user: Map_, what: string, cluster: ExecClusterInfo): DynamicCredential | undefined {
    const field = (name: string) => `${what}: ${name}`;
    let dynamic: DynamicCredential | undefined;
    const tokenFile = optString(user, 'tokenFile', field('tokenFile'), this.#where);
    if (tokenFile) {
      this.#requireTrusted(field('tokenFile'));
      dynamic = new TokenFile(this.#path(tokenFile), `${this.#where}: ${field('tokenFile')}`);
    }
    if (user['exec'] !== undefined) {
      this.#requireTrusted(field('exec'));
      dynamic = new ExecPlugin(this.#exec(user['exec'], field('exec')), `${this.#where}: ${what}`, cluster);
    }
    return dynamic;
  }

  #impersonation(user: Map_, what: string): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    const as = optString(user, 'as', `${what}: as`, this.#where);
    const uid = optString(user, 'as-uid', `${what}: as-uid`, this.#where);
    const groups = optStrings(user, 'as-groups', `${what}: as-groups`, this);
    const extra = user['as-user-extra'];
    if (as) out['Impersonate-User'] = as;
    if (uid) out['Impersonate-Uid'] = uid;
    if (groups.length > 0) out['Impersonate-Group'] = groups;
    if (extra !== undefined) {
      if (!isMap(extra)) throw this.#fail(`${what}: as-user-extra must map keys to lists of strings`);
      for (const key of Object.keys(extra)) {
        out[`Impersonate-Extra-${encodeURIComponent(key)}`] = optStrings(extra, key, `${what}: as-user-extra`, this);
      }
    }
    if ((uid || groups.length > 0 || extra !== undefined) && !as) {
      throw this.#fail(`${what} sets impersonation details without as (the user to impersonate)`);
    }
    return out;
  }

  #exec(raw: unknown, what: string): ExecConfig {
    if (!isMap(raw)) throw this.#fail(`${what} must be a mapping`);
    const command = optString(raw, 'command', `${what}.command`, this.#where);
    if (!command) throw this.#fail(`${what} has no command`);
    const apiVersion = optString(raw, 'apiVersion', `${what}.apiVersion`, this.#where);
    if (!apiVersion) throw this.#fail(`${what} has no apiVersion`);
    if (!(EXEC_API_VERSIONS as readonly string[]).includes(apiVersion)) {
      throw this.#fail(`${what}.apiVersion ${apiVersion} is not supported (use ${EXEC_API_VERSIONS.join(' or ')})`);
    }
    const mode = optString(raw, 'interactiveMode', `${what}.interactiveMode`, this.#where);
    if (mode === 'Always') throw this.#fail(`${what} needs a terminal (interactiveMode: Always); svc runs without one`);
    if (mode && mode !== 'Never' && mode !== 'IfAvailable') {
      throw this.#fail(`${what}.interactiveMode must be Never, IfAvailable or Always`);
    }
    const args = optStrings(raw, 'args', `${what}.args`, this);
    const env: { name: string; value: string }[] = [];
    const rawEnv = raw['env'] ?? [];
    if (!Array.isArray(rawEnv)) throw this.#fail(`${what}.env must be a list of {name, value}`);
    for (const item of rawEnv) {
      if (!isMap(item) || typeof item['name'] !== 'string' || typeof item['value'] !== 'string') {
        throw this.#fail(`${what}.env must be a list of {name, value} strings`);
      }
      env.push({ name: item['name'], value: item['value'] });
    }
    const installHint = optString(raw, 'installHint', `${what}.installHint`, this.#where);
    return {
      // Like kubectl: a command with a slash is a path, relative to the kubeconfig; a bare name is looked up in PATH.
      command: command.includes('/') ? this.#path(command) : command,
      args,
      env,
      apiVersion: apiVersion as ExecConfig['apiVersion'],
      ...(installHint ? { installHint } : {}),
      provideClusterInfo: optBool(raw, 'provideClusterInfo', `${what}.provideClusterInfo`, this),
    };
  }

  /** A PEM from `<name>-data` (base64) or the file `<name>`; undefined when neither is set. */
  #pem(entry: Map_, name: string, what: string, label: string): string | undefined {
    const data = optString(entry, `${name}-data`, `${what}-data`, this.#where);
    const file = optString(entry, name, what, this.#where);
    if (data && file) throw this.#fail(`${what} and ${name}-data are both set; keep one`);
    let pem: string;
    if (data) {
      if (!/^[A-Za-z0-9+/=\s]+$/.test(data)) throw this.#fail(`${what}-data is not base64`);
      pem = Buffer.from(data, 'base64').toString('utf8');
      if (!pem.includes('-----BEGIN ')) throw this.#fail(`${what}-data is not base64 of a PEM ${label}`);
    } else if (file) {
      this.#requireTrusted(what);
      const path = this.#path(file);
      try {
        pem = readFileSync(path, 'utf8');
      } catch (err) {
        throw this.#fail(`${what} ${path} cannot be read: ${(err as Error).message}`, err);
      }
      if (!pem.includes('-----BEGIN ')) throw this.#fail(`${what} ${path} is not a PEM ${label}`);
    } else {
      return undefined;
    }
    return pem;
  }

  #requireTrusted(what: string): void {
    if (!this.#trusted) {
      throw this.#fail(
        `${what} is not allowed here: a kubeconfig given to svc must carry its credentials inline ` +
          '(certificate-authority-data, client-certificate-data, client-key-data, token), not local files or commands',
      );
    }
  }

  #path(p: string): string {
    return isAbsolute(p) ? p : resolve(this.#base, p);
  }

  #url(text: string, what: string): URL {
    try {
      return new URL(text);
    } catch {
      throw this.#fail(`${what} is not a URL`);
    }
  }

  /** The `kind` entry named `name` in the list `list` (`contexts`, `clusters`, `users`). */
  #entry(root: Map_, list: string, kind: string, name: string): Map_ {
    const items = root[list] ?? [];
    if (!Array.isArray(items)) throw this.#fail(`${list} must be a list`);
    const found = items.find((item: unknown) => isMap(item) && item['name'] === name) as Map_ | undefined;
    if (!found) {
      const known = items.map((i: unknown) => (isMap(i) ? JSON.stringify(i['name']) : '?')).join(', ');
      throw this.#fail(`has no ${kind} ${JSON.stringify(name)} in ${list}${known ? ` (it has ${known})` : ''}`);
    }
    const body = found[kind] ?? {};
    if (!isMap(body)) throw this.#fail(`${kind} ${JSON.stringify(name)} must be a mapping`);
    return body;
  }

  #fail(message: string, cause?: unknown): KubeconfigError {
    return new KubeconfigError(`${this.#where} ${message}`, cause === undefined ? {} : { cause });
  }

  /** For the module-level field readers. */
  fail(message: string): KubeconfigError {
    return this.#fail(message);
  }
}

function isMap(v: unknown): v is Map_ {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optString(entry: Map_, key: string, what: string, where: string): string | undefined {
  const v = entry[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new KubeconfigError(`${where} ${what} must be a string`);
  return v;
}

function optBool(entry: Map_, key: string, what: string, reader: Reader): boolean {
  const v = entry[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw reader.fail(`${what} must be true or false`);
  return v;
}

function optStrings(entry: Map_, key: string, what: string, reader: Reader): string[] {
  const v = entry[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw reader.fail(`${what} must be a list of strings`);
  return v as string[];
}

/** The cluster's `client.authentication.k8s.io/exec` extension, passed to plugins as `spec.cluster.config`. */
function execExtension(cluster: Map_): { config?: unknown } {
  const extensions = cluster['extensions'];
  if (!Array.isArray(extensions)) return {};
  const ext = extensions.find((e: unknown) => isMap(e) && e['name'] === 'client.authentication.k8s.io/exec') as
    | Map_
    | undefined;
  return ext && ext['extension'] !== undefined ? { config: ext['extension'] } : {};
}
