/**
 * How a client proves who it is on each request. A kubeconfig user or the in-cluster ServiceAccount resolves to a
 * `Credentials`: fixed headers (basic auth, impersonation), and either fixed material (a token, a client certificate)
 * or a source that is asked again while the client runs (a token file that rotates, an exec plugin whose answer
 * expires). The client calls `current()` per request and `refresh()` after a 401.
 */
import { readFile } from 'node:fs/promises';
import { CredentialError } from './errors.ts';

/** What one request carries: headers, and a client certificate with its key (PEM) when the user has one. */
export interface AuthMaterial {
  headers: Readonly<Record<string, string | readonly string[]>>;
  cert?: string;
  key?: string;
}

/** A source of credentials that may change while the client runs. */
export interface DynamicCredential {
  /** The current token and/or certificate, fetched or read again when the cached one expired. */
  get(): Promise<{ token?: string; cert?: string; key?: string }>;
  /** Forgets the cached answer (the server refused it with 401); the next `get()` fetches anew. */
  invalidate(): void;
}

/** The credentials of one client. */
export class Credentials {
  readonly #headers: Record<string, string | readonly string[]>;
  readonly #cert: string | undefined;
  readonly #key: string | undefined;
  readonly #dynamic: DynamicCredential | undefined;

  /**
   * `headers` go on every request (basic auth, a fixed bearer token, impersonation); `cert`/`key` are a fixed client
   * certificate; `dynamic` adds a bearer token and/or certificate that can change, and wins over the fixed ones.
   */
  constructor(
    options: {
      headers?: Record<string, string | readonly string[]>;
      cert?: string;
      key?: string;
      dynamic?: DynamicCredential;
    } = {},
  ) {
    this.#headers = options.headers ?? {};
    this.#cert = options.cert;
    this.#key = options.key;
    this.#dynamic = options.dynamic;
  }

  /** True when the material can change (a 401 is then worth one retry after `refresh()`). */
  get dynamic(): boolean {
    return this.#dynamic !== undefined;
  }

  /** The material of the next request. Rejects when a plugin or token file fails (CredentialError). */
  async current(): Promise<AuthMaterial> {
    if (!this.#dynamic) return { headers: this.#headers, ...pair(this.#cert, this.#key) };
    const fresh = await this.#dynamic.get();
    const headers = fresh.token ? { ...this.#headers, Authorization: `Bearer ${fresh.token}` } : this.#headers;
    return fresh.cert && fresh.key
      ? { headers, cert: fresh.cert, key: fresh.key }
      : { headers, ...pair(this.#cert, this.#key) };
  }

  /** After a 401: drops cached dynamic material. Returns whether the next request may carry something else. */
  refresh(): boolean {
    this.#dynamic?.invalidate();
    return this.#dynamic !== undefined;
  }
}

function pair(cert: string | undefined, key: string | undefined): { cert?: string; key?: string } {
  return cert && key ? { cert, key } : {};
}

/**
 * A bearer token read from a file and read again every `periodMs` (and after a 401): bound ServiceAccount tokens
 * are rotated by the kubelet while the process runs. A failed re-read keeps the last good token.
 */
export class TokenFile implements DynamicCredential {
  readonly #path: string;
  readonly #periodMs: number;
  readonly #what: string;
  #token: string | undefined;
  #readAt = 0;

  /** `what` names the file's role in errors (e.g. `user "admin": tokenFile`). */
  constructor(path: string, what: string, periodMs = 60_000) {
    this.#path = path;
    this.#what = what;
    this.#periodMs = periodMs;
  }

  async get(): Promise<{ token: string }> {
    if (this.#token === undefined || Date.now() - this.#readAt >= this.#periodMs) {
      try {
        const token = (await readFile(this.#path, 'utf8')).trim();
        if (!token) throw new CredentialError(`${this.#what} ${this.#path} is empty`);
        this.#token = token;
        this.#readAt = Date.now();
      } catch (err) {
        if (this.#token === undefined) {
          if (err instanceof CredentialError) throw err;
          throw new CredentialError(`${this.#what} ${this.#path} cannot be read: ${(err as Error).message}`, {
            cause: err,
          });
        }
      }
    }
    return { token: this.#token };
  }

  invalidate(): void {
    this.#readAt = 0;
  }
}
