/**
 * An OCI distribution client: which digest a tag points at, whether a digest exists, and whether a registry
 * accepts a set of credentials. Every call goes through the outbound policy (src/net): https unless the registry is
 * marked insecure (plain http, which the policy refuses in production mode), only addresses the policy's scope
 * allows, one overall timeout.
 *
 * Authentication follows the registry's `WWW-Authenticate` challenge: Basic (the credentials on every request), or
 * Bearer (a token from the challenge's realm for the challenge's service and the repository's pull scope, fetched
 * with the credentials when there are any, anonymously otherwise). What a registry asked for is remembered per
 * registry and user, and tokens are cached per scope until they expire, so a warm resolve is one request.
 */
import { createHash } from 'node:crypto';
import type { Response } from 'undici';
import { isDigest, isReference, isRegistryHost, isRepositoryPath } from '../core/image-ref.ts';
import { type OutboundPolicy, outboundFetch } from '../net/outbound.ts';
import { type Challenge, parseChallenge } from './challenge.ts';
import { networkFailure, RegistryError } from './errors.ts';

/** Manifest media types asked for: OCI index and manifest, Docker manifest list and v2 manifest. */
export const MANIFEST_ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

/** Where a registry answers and how to talk to it. */
export interface RegistryEndpoint {
  /** `name[:port]` of the registry API. */
  host: string;
  /** Plain http instead of https (refused by the outbound policy in production mode). */
  insecure?: boolean;
  /** Extra CA certificate (PEM) to trust for this registry. */
  ca?: string;
  credentials?: { username: string; password: string };
  /** A TLS client certificate and key (PEM) to present (a chart repository registered with one). */
  clientCert?: { cert: string; key: string };
}

export interface RegistryClientOptions {
  policy: OutboundPolicy;
  /** Timeout of each HTTP call (default 10 s). */
  timeoutMs?: number;
  /** Clock, for token expiry (tests). */
  now?: () => number;
}

/** Token lifetime when the token service does not say (the distribution token spec's default). */
const DEFAULT_TOKEN_SECONDS = 60;
/** Tokens are dropped this long before they expire, so a request never carries one that runs out on the way. */
const TOKEN_MARGIN_MS = 5_000;
/** Bound of each cache (hosts × users × scopes), so an unbounded set of repositories cannot grow memory forever. */
const MAX_CACHED = 4096;

type Auth = { kind: 'basic' } | { kind: 'bearer'; realm: string; service: string | undefined };

/** The OCI distribution client; one per process, shared (its caches are the point). */
export class RegistryClient {
  readonly #options: Required<RegistryClientOptions>;
  /** What each registry (and user) asked for last time. */
  readonly #auth = new Map<string, Auth>();
  /** Bearer tokens per registry, user and scope. */
  readonly #tokens = new Map<string, { token: string; expiresAt: number }>();

  constructor(options: RegistryClientOptions) {
    this.#options = { timeoutMs: 10_000, now: Date.now, ...options };
  }

  /**
   * The digest `path:reference` points at: `Docker-Content-Digest` of a HEAD request, or, when a registry leaves
   * it out, the sha256 of the manifest a GET returns. RegistryError naming the cause otherwise (notfound when the
   * tag or repository does not exist).
   */
  async resolve(endpoint: RegistryEndpoint, path: string, reference: string): Promise<string> {
    checkTarget(endpoint, path, reference);
    const url = `${baseURL(endpoint)}/v2/${path}/manifests/${reference}`;
    const scope = `repository:${path}:pull`;
    const head = await this.#send(endpoint, url, 'HEAD', scope);
    if (head.status === 404) throw notFound(endpoint, path, reference);
    if (!head.ok) throw unexpected(endpoint, head.status);
    const digest = head.headers.get('docker-content-digest');
    if (digest && isDigest(digest)) return digest;
    const get = await this.#send(endpoint, url, 'GET', scope);
    if (get.status === 404) throw notFound(endpoint, path, reference);
    if (!get.ok) throw unexpected(endpoint, get.status);
    const body = Buffer.from(await get.arrayBuffer());
    return `sha256:${createHash('sha256').update(body).digest('hex')}`;
  }

  /** Whether `path@digest` exists on the registry (false on 404; RegistryError for any other failure). */
  async has(endpoint: RegistryEndpoint, path: string, digest: string): Promise<boolean> {
    checkTarget(endpoint, path, digest);
    const url = `${baseURL(endpoint)}/v2/${path}/manifests/${digest}`;
    const res = await this.#send(endpoint, url, 'HEAD', `repository:${path}:pull`);
    if (res.status === 404) return false;
    if (!res.ok) throw unexpected(endpoint, res.status);
    return true;
  }

  /**
   * Checks that the registry answers the distribution API and accepts the endpoint's credentials (`GET /v2/`
   * through the challenge, a token without a scope as `docker login` asks for one). RegistryError otherwise.
   */
  async ping(endpoint: RegistryEndpoint): Promise<void> {
    if (!isRegistryHost(endpoint.host))
      throw new RegistryError('provider', `"${endpoint.host}" is not a registry host`);
    const res = await this.#send(endpoint, `${baseURL(endpoint)}/v2/`, 'GET', undefined);
    await res.body?.cancel();
    if (!res.ok) throw unexpected(endpoint, res.status);
  }

  /**
   * The tags of repository `path` (`GET /v2/<path>/tags/list`, following `Link` pages), at most `max` of them.
   * RegistryError naming the cause (notfound when the repository does not exist).
   */
  async tags(endpoint: RegistryEndpoint, path: string, max = MAX_TAGS): Promise<string[]> {
    checkTarget(endpoint, path, 'latest');
    const tags: string[] = [];
    let next: string | undefined = `${baseURL(endpoint)}/v2/${path}/tags/list?n=1000`;
    while (next && tags.length < max) {
      const res = await this.#send(endpoint, next, 'GET', `repository:${path}:pull`, 'application/json');
      if (res.status === 404) throw new RegistryError('notfound', `registry ${endpoint.host}: ${path} not found`);
      if (!res.ok) throw unexpected(endpoint, res.status);
      const body = JSON.parse((await readBounded(res, MAX_JSON_BYTES, endpoint)).toString('utf8')) as {
        tags?: unknown;
      };
      if (Array.isArray(body.tags)) tags.push(...body.tags.filter((t): t is string => typeof t === 'string'));
      next = nextPage(res.headers.get('link'), endpoint);
    }
    return tags.slice(0, max);
  }

  /**
   * The OCI manifest `path:reference` (a tag or digest) and its digest, asking for `accept` (an OCI image manifest
   * by default). RegistryError naming the cause; a manifest over 4 MiB is refused.
   */
  async manifest(
    endpoint: RegistryEndpoint,
    path: string,
    reference: string,
    accept = 'application/vnd.oci.image.manifest.v1+json',
  ): Promise<{ digest: string; manifest: unknown }> {
    checkTarget(endpoint, path, reference);
    const url = `${baseURL(endpoint)}/v2/${path}/manifests/${reference}`;
    const res = await this.#send(endpoint, url, 'GET', `repository:${path}:pull`, accept);
    if (res.status === 404) throw notFound(endpoint, path, reference);
    if (!res.ok) throw unexpected(endpoint, res.status);
    const body = await readBounded(res, MAX_JSON_BYTES, endpoint);
    const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    if (isDigest(reference) && reference !== digest) {
      throw new RegistryError('provider', `registry ${endpoint.host}: manifest ${reference} has other content`);
    }
    try {
      return { digest, manifest: JSON.parse(body.toString('utf8')) };
    } catch (err) {
      throw new RegistryError('provider', `registry ${endpoint.host}: manifest is not JSON`, { cause: err });
    }
  }

  /**
   * The blob `path@digest`, at most `maxBytes` long, checked against its digest. A redirect to a storage host is
   * followed without the registry's credentials. RegistryError naming the cause.
   */
  async blob(endpoint: RegistryEndpoint, path: string, digest: string, maxBytes: number): Promise<Buffer> {
    checkTarget(endpoint, path, digest);
    const url = `${baseURL(endpoint)}/v2/${path}/blobs/${digest}`;
    const res = await this.#send(endpoint, url, 'GET', `repository:${path}:pull`, '*/*');
    if (res.status === 404) throw notFound(endpoint, path, digest);
    if (!res.ok) throw unexpected(endpoint, res.status);
    const body = await readBounded(res, maxBytes, endpoint);
    if (`sha256:${createHash('sha256').update(body).digest('hex')}` !== digest) {
      throw new RegistryError('provider', `registry ${endpoint.host}: blob ${digest} does not match its digest`);
    }
    return body;
  }

  /**
   * Sends a request with what the registry asked for last time; on a 401 answers its challenge (Basic, or a fresh
   * Bearer token) and sends it once more. A second 401 means the credentials (or their lack) are refused.
   */
  async #send(
    endpoint: RegistryEndpoint,
    url: string,
    method: 'GET' | 'HEAD',
    scope: string | undefined,
    accept = MANIFEST_ACCEPT,
  ) {
    const key = authKey(endpoint);
    let authorization = await this.#knownAuthorization(endpoint, key, scope);
    for (let attempt = 0; ; attempt++) {
      const res = await this.#fetch(endpoint, url, {
        method,
        headers: { accept, ...(authorization ? { authorization } : {}) },
      });
      if (res.status === 403) {
        await res.body?.cancel();
        throw new RegistryError('permission', `registry ${endpoint.host}: access denied${scopeText(scope)}`);
      }
      if (res.status !== 401) return res;
      await res.body?.cancel();
      const challenge = parseChallenge(res.headers.get('www-authenticate'));
      if (attempt > 0 || !challenge) throw unauthorized(endpoint, scope);
      authorization = await this.#answer(endpoint, key, challenge, scope);
    }
  }

  /**
   * The Authorization header to send before any challenge, from what the registry asked for before: Basic
   * credentials, or a Bearer token for the scope (cached, or fetched now from the known realm).
   */
  async #knownAuthorization(endpoint: RegistryEndpoint, key: string, scope: string | undefined) {
    const auth = this.#auth.get(key);
    if (auth?.kind === 'basic') return basic(endpoint);
    if (auth?.kind !== 'bearer') return undefined;
    const tokenKey = `${key}\0${scope ?? ''}`;
    const cached = this.#tokens.get(tokenKey);
    if (cached && cached.expiresAt > this.#options.now()) return `Bearer ${cached.token}`;
    const token = await this.#fetchToken(endpoint, auth, scope);
    remember(this.#tokens, tokenKey, token);
    return `Bearer ${token.token}`;
  }

  /** Answers a challenge: Basic credentials, or a fresh Bearer token; remembers what the registry asked for. */
  async #answer(endpoint: RegistryEndpoint, key: string, challenge: Challenge, scope: string | undefined) {
    if (challenge.scheme === 'basic') {
      if (!endpoint.credentials) throw unauthorized(endpoint, scope);
      remember(this.#auth, key, { kind: 'basic' });
      return basic(endpoint);
    }
    const realm = challenge.params['realm'];
    if (!realm) throw new RegistryError('provider', `registry ${endpoint.host}: Bearer challenge without a realm`);
    const auth: Auth = { kind: 'bearer', realm, service: challenge.params['service'] };
    remember(this.#auth, key, auth);
    const token = await this.#fetchToken(endpoint, auth, scope);
    remember(this.#tokens, `${key}\0${scope ?? ''}`, token);
    return `Bearer ${token.token}`;
  }

  /** GETs a token from the realm for the service and scope, with the credentials when there are any. */
  async #fetchToken(endpoint: RegistryEndpoint, auth: Extract<Auth, { kind: 'bearer' }>, scope: string | undefined) {
    let url: URL;
    try {
      url = new URL(auth.realm);
    } catch {
      throw new RegistryError('provider', `registry ${endpoint.host}: token realm is not a URL`);
    }
    if (auth.service) url.searchParams.set('service', auth.service);
    if (scope) url.searchParams.set('scope', scope);
    const credentials = basic(endpoint);
    const res = await this.#fetch(endpoint, url.toString(), {
      method: 'GET',
      headers: { accept: 'application/json', ...(credentials ? { authorization: credentials } : {}) },
    });
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw unauthorized(endpoint, scope);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new RegistryError('provider', `registry ${endpoint.host}: token service answered ${res.status}`);
    }
    const body = (await res.json().catch(() => ({}))) as {
      token?: unknown;
      access_token?: unknown;
      expires_in?: unknown;
    };
    const token = typeof body.token === 'string' ? body.token : body.access_token;
    if (typeof token !== 'string' || token === '') {
      throw new RegistryError('provider', `registry ${endpoint.host}: token service returned no token`);
    }
    const seconds =
      typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : DEFAULT_TOKEN_SECONDS;
    return { token, expiresAt: this.#options.now() + seconds * 1000 - TOKEN_MARGIN_MS };
  }

  async #fetch(endpoint: RegistryEndpoint, url: string, init: { method: string; headers: Record<string, string> }) {
    try {
      return (await outboundFetch(url, init, this.#options.policy, {
        timeoutMs: this.#options.timeoutMs,
        ...(endpoint.ca ? { ca: endpoint.ca } : {}),
        ...(endpoint.clientCert ? { clientCert: endpoint.clientCert } : {}),
      })) as Response;
    } catch (err) {
      throw networkFailure(endpoint.host, err);
    }
  }
}

/** Most tags read from one repository. */
const MAX_TAGS = 10_000;
/** Largest manifest or tag list read. */
const MAX_JSON_BYTES = 4 * 1024 * 1024;

/** Reads an answer's body, refusing one longer than `max` bytes (the answer is cancelled there). */
async function readBounded(res: Response, max: number, endpoint: RegistryEndpoint): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > max) {
    await res.body?.cancel();
    throw new RegistryError('provider', `registry ${endpoint.host}: answer of ${declared} bytes is over ${max}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += (chunk as Uint8Array).length;
    if (size > max) {
      await res.body?.cancel().catch(() => undefined);
      throw new RegistryError('provider', `registry ${endpoint.host}: answer is over ${max} bytes`);
    }
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}

/** The next page of a tag list (`Link: </v2/…?last=…>; rel="next"`), on the same registry only. */
function nextPage(link: string | null, endpoint: RegistryEndpoint): string | undefined {
  const target = link ? /<([^>]+)>\s*;\s*rel="?next"?/.exec(link)?.[1] : undefined;
  if (!target) return undefined;
  const url = new URL(target, baseURL(endpoint));
  return url.origin === new URL(baseURL(endpoint)).origin ? url.toString() : undefined;
}

/** `https://host`, or `http://host` for an insecure registry. */
function baseURL(endpoint: RegistryEndpoint): string {
  return `${endpoint.insecure ? 'http' : 'https'}://${endpoint.host}`;
}

/** One cache key per registry and user (never the password: it is not needed to tell users apart). */
function authKey(endpoint: RegistryEndpoint): string {
  return `${baseURL(endpoint)}\0${endpoint.credentials?.username ?? ''}`;
}

function basic(endpoint: RegistryEndpoint): string | undefined {
  const c = endpoint.credentials;
  return c ? `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}` : undefined;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_CACHED) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}

/** Refuses anything that is not a host, a repository path and a reference before it becomes part of a URL. */
function checkTarget(endpoint: RegistryEndpoint, path: string, reference: string): void {
  if (!isRegistryHost(endpoint.host)) throw new RegistryError('provider', `"${endpoint.host}" is not a registry host`);
  if (!isRepositoryPath(path)) throw new RegistryError('notfound', `"${path}" is not a repository path`);
  if (!isReference(reference)) throw new RegistryError('notfound', `"${reference}" is not a tag or digest`);
}

function scopeText(scope: string | undefined): string {
  return scope ? ` to ${scope.split(':')[1]}` : '';
}

function notFound(endpoint: RegistryEndpoint, path: string, reference: string): RegistryError {
  const what = isDigest(reference) ? `digest ${reference}` : `tag ${reference}`;
  return new RegistryError('notfound', `registry ${endpoint.host}: ${path} ${what} not found`);
}

function unauthorized(endpoint: RegistryEndpoint, scope: string | undefined): RegistryError {
  const why = endpoint.credentials ? 'credentials rejected' : 'credentials required';
  return new RegistryError('auth', `registry ${endpoint.host}: unauthorized (${why})${scopeText(scope)}`);
}

function unexpected(endpoint: RegistryEndpoint, status: number): RegistryError {
  return new RegistryError('provider', `registry ${endpoint.host} answered ${status}`);
}
