/**
 * The client's one HTTP client for svc's REST API (`/api/v1`): JSON in and out, `Authorization: Bearer svc_…`, and
 * every failure turned into a CliError carrying the server's own `{"error"}` message and the exit code its status
 * means (./errors.ts). Nothing here prints.
 */
import { CliError, EXIT, exitCodeOfStatus } from './errors.ts';

/** One request: method, path under /api/v1, optional query and JSON body. */
export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Ends the request early (Ctrl-C, a wait's deadline). */
  signal?: AbortSignal;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS)',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
};

/** Why a fetch failed before any answer, in words (the cause's code when known). */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? '';
  return NETWORK_CODES[code] ?? cause?.message ?? (err as Error).message;
}

/** A client of one server, authenticating with one API key (or none, for login checks). */
export class ApiClient {
  readonly server: string;
  readonly #apiKey: string | undefined;

  constructor(server: string, apiKey: string | undefined) {
    this.server = server;
    this.#apiKey = apiKey;
  }

  /** The full URL of `path` under /api/v1 with `query`. */
  url(path: string, query: RequestOptions['query'] = {}): string {
    const url = new URL(`${this.server}/api/v1${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  /**
   * Sends the request and answers the parsed JSON body of a 2xx. CliError with the server's message otherwise
   * (exit code by status), when the server cannot be reached (exit 1), or without an API key (exit 3).
   */
  async request<T = Record<string, unknown>>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.#send(method, path, options, 'application/json');
    const text = await res.text();
    const body = parseJson(text);
    if (res.ok && body !== undefined) return body as T;
    throw this.#failure(res, body);
  }

  /**
   * GETs a streamed answer (logs; with `accept` `text/event-stream`, the App event stream): its headers, and its
   * body as it arrives, which ends when the server ends it or `options.signal` aborts. Failures as `request`: the server's `{"error"}` message and its exit code.
   */
  async stream(
    path: string,
    options: RequestOptions = {},
    accept = 'text/plain, application/json',
  ): Promise<{ headers: Headers; body: ReadableStream<Uint8Array> }> {
    const res = await this.#send('GET', path, options, accept);
    if (res.ok && res.body) return { headers: res.headers, body: res.body };
    throw this.#failure(res, parseJson(await res.text()));
  }

  /** Sends one request with the key; CliError before any answer (no key, unreachable). */
  async #send(method: string, path: string, options: RequestOptions, accept: string): Promise<Response> {
    if (!this.#apiKey) {
      throw new CliError('not logged in: run `svc login <server-url>`, or set SVC_API_KEY', EXIT.auth);
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}`, accept };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetch(this.url(path, options.query), {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      throw new CliError(`cannot reach ${this.server}: ${networkReason(err)}`, EXIT.failed);
    }
  }

  /** The CliError of an answer that is not what was asked for: the server's message, the exit code of its status. */
  #failure(res: Response, body: unknown): CliError {
    const message =
      body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string'
        ? (body as { error: string }).error
        : `${res.status} ${res.statusText || 'unexpected answer'} from ${this.server} (is it an svc server?)`;
    return new CliError(message, res.ok ? EXIT.failed : exitCodeOfStatus(res.status));
  }
}

/** `text` parsed as JSON ({} when empty), undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return text === '' ? {} : JSON.parse(text);
  } catch {
    return undefined;
  }
}
