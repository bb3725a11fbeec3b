/**
 * Vault and OpenBao over their HTTP API (the two speak the same one), every call through the outbound policy
 * (src/net/outbound.ts). What svc does with a store (contract §4.4 rule 4):
 * - authenticate: the token itself, or an AppRole login (`POST /v1/auth/{authMount}/login`) per test and fetch;
 * - test: a token self-lookup (`GET /v1/auth/token/lookup-self`, its TTL becomes credentialsExpireAt) and a check
 *   that `mountPath` is a KV version 2 engine (`GET /v1/sys/internal/ui/mounts/{mountPath}`, what the vault CLI asks);
 * - fetch: a KV v2 read at `/v1/{mountPath}/data/{path}` and one key of it.
 * Failures are StoreErrors whose errorClass comes from the real cause. Tokens travel in the X-Vault-Token header
 * only, and no answer body is ever logged or put into a message beyond the server's own error sentence.
 */
import type { OutboundPolicy } from '../net/outbound.ts';
import { outboundFetch } from '../net/outbound.ts';
import { StoreError, storeErrorOf } from './errors.ts';
import type { VaultConfig, VaultCredentials } from './providers.ts';

/** Everything one conversation with a store needs. */
export interface VaultTarget {
  config: VaultConfig;
  credentials: VaultCredentials;
  policy: OutboundPolicy;
  /** Timeout of each call. */
  timeoutMs: number;
}

/** What a successful test reports. */
export interface VaultTestResult {
  details: {
    authenticated: true;
    method: 'token' | 'approle';
    /** Seconds the token has left; null = it does not expire. */
    ttlSeconds: number | null;
    policies: string[];
    mount: { path: string; type: string; version: string };
  };
  /** When the stored token expires (token credentials with a TTL only). */
  credentialsExpireAt: string | null;
}

interface Answer {
  status: number;
  body: Record<string, unknown> | undefined;
}

/** The first error sentence of a Vault answer (`{"errors": [...]}`), shortened; '' when there is none. */
function vaultMessage(body: Record<string, unknown> | undefined): string {
  const errors = body?.['errors'];
  const first = Array.isArray(errors) ? errors.find((e) => typeof e === 'string' && e.trim() !== '') : undefined;
  return typeof first === 'string' ? first.replace(/\s+/g, ' ').trim().slice(0, 200) : '';
}

/** A store that answers something other than the Vault API, or fails on its side. */
function providerError(what: string, answer: Answer): StoreError {
  const said = vaultMessage(answer.body);
  return new StoreError('provider', `${what}: the server answered ${answer.status}${said ? ` (${said})` : ''}`);
}

const mountOf = (config: VaultConfig) => config.mountPath ?? 'secret';
const pathPart = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** One store's API. Create one per test or fetch (an AppRole login is per conversation). */
export class VaultClient {
  readonly #target: VaultTarget;
  readonly #host: string;

  constructor(target: VaultTarget) {
    this.#target = target;
    this.#host = new URL(target.config.address).host;
  }

  async #call(method: 'GET' | 'POST', path: string, options: { token?: string; body?: unknown } = {}): Promise<Answer> {
    const url = `${this.#target.config.address.replace(/\/+$/, '')}/v1/${path}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.token) headers['x-vault-token'] = options.token;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let res: Awaited<ReturnType<typeof outboundFetch>>;
    try {
      res = await outboundFetch(
        url,
        { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) },
        this.#target.policy,
        {
          timeoutMs: this.#target.timeoutMs,
          ...(this.#target.config.caCert ? { ca: this.#target.config.caCert } : {}),
        },
      );
    } catch (err) {
      throw storeErrorOf(this.#host, err);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw storeErrorOf(this.#host, err);
    }
    let body: Record<string, unknown> | undefined;
    if (text.trim() !== '') {
      try {
        const parsed: unknown = JSON.parse(text);
        body = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
      } catch {
        throw new StoreError(
          'provider',
          `${this.#host} answered ${res.status} with something other than the Vault API`,
        );
      }
    }
    return { status: res.status, body };
  }

  /** The token to use: the stored one, or a fresh one from an AppRole login. StoreError `auth` when refused. */
  async login(): Promise<{ token: string; method: 'token' | 'approle' }> {
    const creds = this.#target.credentials;
    if ('token' in creds) return { token: creds.token, method: 'token' };
    const mount = this.#target.config.authMount ?? 'approle';
    const answer = await this.#call('POST', `auth/${pathPart(mount)}/login`, {
      body: { role_id: creds.roleId, secret_id: creds.secretId },
    });
    if (answer.status === 200) {
      const token = (answer.body?.['auth'] as { client_token?: unknown } | undefined)?.client_token;
      if (typeof token === 'string' && token !== '') return { token, method: 'approle' };
      throw providerError(`AppRole login at auth/${mount}`, answer);
    }
    if (answer.status === 400 || answer.status === 401 || answer.status === 403 || answer.status === 404) {
      const said = vaultMessage(answer.body);
      throw new StoreError('auth', `AppRole login at auth/${mount} was refused${said ? `: ${said}` : ''}`);
    }
    throw providerError(`AppRole login at auth/${mount}`, answer);
  }

  /** Revokes a token svc obtained itself (AppRole); failures are ignored, the token expires by itself anyway. */
  async revokeSelf(token: string): Promise<void> {
    await this.#call('POST', 'auth/token/revoke-self', { token }).catch(() => undefined);
  }

  /** The token's own record: TTL and policies. StoreError `auth` when the token is invalid or expired. */
  async lookupSelf(
    token: string,
  ): Promise<{ ttlSeconds: number | null; expireTime: string | null; policies: string[] }> {
    const answer = await this.#call('GET', 'auth/token/lookup-self', { token });
    if (answer.status === 401 || answer.status === 403) {
      throw new StoreError(
        'auth',
        `${this.#host}: the token is invalid or expired (${vaultMessage(answer.body) || 'permission denied'})`,
      );
    }
    if (answer.status !== 200) throw providerError('token self-lookup', answer);
    const data = (answer.body?.['data'] ?? {}) as { ttl?: unknown; expire_time?: unknown; policies?: unknown };
    const ttl = typeof data.ttl === 'number' && data.ttl > 0 ? data.ttl : null;
    const expireTime = typeof data.expire_time === 'string' && data.expire_time !== '' ? data.expire_time : null;
    const policies = Array.isArray(data.policies)
      ? data.policies.filter((p): p is string => typeof p === 'string')
      : [];
    return { ttlSeconds: ttl, expireTime, policies };
  }

  /**
   * Checks that `mountPath` is a KV version 2 engine. Not KV v2: `provider`. Refused: `notfound` when the token's
   * policy would allow reading there (so the mount itself is missing), else `permission`.
   */
  async kvMount(token: string): Promise<{ path: string; type: string; version: string }> {
    const mount = mountOf(this.#target.config);
    const answer = await this.#call('GET', `sys/internal/ui/mounts/${pathPart(mount)}`, { token });
    if (answer.status === 200) return kvVersion2(mount, answer.body?.['data']);
    if (answer.status === 403) throw await this.#refusedMount(token, mount);
    throw providerError(`mount "${mount}"`, answer);
  }

  /**
   * Why the mount preflight answered 403, which it does both for a mount that does not exist and for one the token
   * may not use: the token's capabilities on the data path tell the two apart.
   */
  async #refusedMount(token: string, mount: string): Promise<StoreError> {
    const caps = await this.#call('POST', 'sys/capabilities-self', { token, body: { paths: [`${mount}/data/`] } });
    const list = (caps.body?.['capabilities'] ?? []) as unknown[];
    if (caps.status === 200 && list.some((c) => c === 'read' || c === 'root')) {
      return new StoreError('notfound', `no secrets engine is mounted at "${mount}"`);
    }
    return new StoreError('permission', `the token may not read mount "${mount}"`);
  }

  /** One key of the KV v2 secret at `path`. StoreError `notfound` (no secret, or no such key), `permission`, … */
  async read(token: string, path: string, key: string): Promise<string> {
    const mount = mountOf(this.#target.config);
    const where = `${mount}/${path}`;
    const answer = await this.#call('GET', `${pathPart(mount)}/data/${pathPart(path)}`, { token });
    if (answer.status === 404) throw new StoreError('notfound', `no secret at "${where}" (KV v2 mount "${mount}")`);
    if (answer.status === 403) throw new StoreError('permission', `the token may not read "${where}"`);
    if (answer.status !== 200) throw providerError(`read of "${where}"`, answer);
    const data = (answer.body?.['data'] as { data?: Record<string, unknown> | null } | undefined)?.data;
    if (!data) throw new StoreError('notfound', `the secret at "${where}" is deleted or destroyed`);
    const value = data[key];
    if (value === undefined) throw new StoreError('notfound', `the secret at "${where}" has no key "${key}"`);
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

/** The mount described by the preflight's `data`, which must be a KV version 2 engine (StoreError `provider`). */
function kvVersion2(mount: string, described: unknown): { path: string; type: string; version: string } {
  const data = (described ?? {}) as { type?: unknown; options?: { version?: unknown } | null };
  const type = typeof data.type === 'string' ? data.type : 'unknown';
  const version = typeof data.options?.version === 'string' ? data.options.version : '1';
  if (type !== 'kv' || version !== '2') {
    const what = type === 'kv' ? `a KV version ${version} engine` : `a ${type} engine`;
    throw new StoreError('provider', `mount "${mount}" is ${what}, not KV version 2`);
  }
  return { path: mount, type, version };
}

/** Runs `use` with a token; a token from an AppRole login is revoked afterwards (best effort). */
async function withToken<T>(client: VaultClient, use: (token: string, method: 'token' | 'approle') => Promise<T>) {
  const { token, method } = await client.login();
  try {
    return await use(token, method);
  } finally {
    if (method === 'approle') await client.revokeSelf(token);
  }
}

/** Contract §4.4 rule 4's Test: login, token self-lookup (TTL), and the KV v2 mount check. */
export function testVault(target: VaultTarget): Promise<VaultTestResult> {
  const client = new VaultClient(target);
  return withToken(client, async (token, method) => {
    const self = await client.lookupSelf(token);
    const mount = await client.kvMount(token);
    const expires =
      method === 'token' && self.ttlSeconds !== null
        ? (self.expireTime ?? new Date(Date.now() + self.ttlSeconds * 1000).toISOString())
        : null;
    return {
      details: { authenticated: true, method, ttlSeconds: self.ttlSeconds, policies: self.policies, mount },
      credentialsExpireAt: expires === null ? null : new Date(expires).toISOString(),
    };
  });
}

/**
 * Contract §4.4 rule 4's Fetch: for each `{path, key}`, that key of the KV v2 secret at `path`, in order; one login
 * and one mount check for all of them. The first failure rejects the whole fetch.
 */
export function readVaultValues(
  target: VaultTarget,
  refs: readonly { path: string; key: string }[],
): Promise<string[]> {
  const client = new VaultClient(target);
  return withToken(client, async (token) => {
    await client.kvMount(token);
    const values: string[] = [];
    for (const ref of refs) values.push(await client.read(token, ref.path, ref.key));
    return values;
  });
}
