/**
 * A small JSON REST client for the Kubernetes API built on a kubeconfig (client certificates, bearer tokens and
 * CA handling come from @kubernetes/client-node's KubeConfig, read once per client; requests share one keep-alive
 * connection pool, watches use connections of their own). Plain JSON in and out: no generated model classes,
 * so timestamps and unknown kinds pass through untouched. Errors become KubeApiError with the API's status.
 */
import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

/** A failed API call: `status` is the HTTP status (0 when the server was unreachable), `reason` the API's reason. */
export class KubeApiError extends Error {
  readonly status: number;
  readonly reason: string;
  constructor(status: number, reason: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'KubeApiError';
    this.status = status;
    this.reason = reason;
  }
}

/** True for a 404 from the API server. */
export const isNotFound = (err: unknown): boolean => err instanceof KubeApiError && err.status === 404;
/** True for a 409 (resourceVersion conflict or already exists). */
export const isConflict = (err: unknown): boolean => err instanceof KubeApiError && err.status === 409;

export interface RequestOptions {
  method?: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** TLS material and fixed headers read from the kubeconfig once (files are not re-read per request). */
interface Transport {
  /** Shared keep-alive agent for ordinary requests: one TLS handshake per connection, not per request. */
  agent: http.Agent;
  /** Agent for watches: long-lived streams keep their own connections and never idle out in the shared pool. */
  watchAgent: http.Agent;
  /** Headers of every request (Authorization, impersonation), unless `dynamicAuth`. */
  headers: Record<string, string>;
  /** Basic auth (`user:password`) when the kubeconfig has one. */
  auth?: string;
  /** The user's credentials come from an exec or auth-provider plugin that may refresh them: ask per request. */
  dynamicAuth: boolean;
}

/**
 * Free keep-alive sockets are closed after this idle time, below the usual idle timeouts of API servers and load
 * balancers (60 s and more), so a request is rarely sent on a connection the other side is about to close.
 */
const IDLE_SOCKET_MS = 30_000;

/** A connection to one API server. */
export class KubeClient {
  readonly kubeConfig: KubeConfig;
  readonly server: URL;
  #transport: Promise<Transport> | undefined;

  constructor(kubeConfig: KubeConfig) {
    this.kubeConfig = kubeConfig;
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
  }

  /**
   * Drops every open connection: requests in flight fail with KubeApiError(0), watches end (an Informer watches
   * again); later requests connect afresh. For shutdown, and to prove that callers survive a broken connection.
   */
  async dropConnections(): Promise<void> {
    if (!this.#transport) return;
    const t = await this.#transport.catch(() => undefined);
    t?.agent.destroy();
    t?.watchAgent.destroy();
  }

  /** Built on first use and kept for the client's life (a failed build is retried by the next request). */
  #getTransport(): Promise<Transport> {
    this.#transport ??= buildTransport(this.kubeConfig, this.server).catch((err: unknown) => {
      this.#transport = undefined;
      throw err;
    });
    return this.#transport;
  }

  /** Client for the kubeconfig file at `path`. */
  static fromFile(path: string): KubeClient {
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    return new KubeClient(kc);
  }

  /** Client for a kubeconfig given as YAML text. */
  static fromString(yaml: string): KubeClient {
    const kc = new KubeConfig();
    kc.loadFromString(yaml);
    return new KubeClient(kc);
  }

  /** Performs one request and parses the JSON answer. Throws KubeApiError. */
  async request<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.#send(path, options);
    const text = await readBody(res);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw apiError(status, text, `${options.method ?? 'GET'} ${path}`);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /**
   * Streams a watch: calls `onEvent` per line until the server closes the stream or `signal` aborts.
   * Resolves when the stream ends; rejects on a non-200 answer (KubeApiError) or a broken connection.
   */
  async watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    onEvent: (type: string, object: Record<string, unknown>) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const res = await this.#send(path, {
      query: { timeoutSeconds: 300, ...query, watch: true, allowWatchBookmarks: true },
      signal,
      timeoutMs: 0,
    });
    if (res.statusCode !== 200) throw apiError(res.statusCode ?? 0, await readBody(res), `WATCH ${path}`);
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let nl = buffer.indexOf('\n');
        while (nl >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) {
            try {
              const ev = JSON.parse(line) as { type: string; object: Record<string, unknown> };
              onEvent(ev.type, ev.object);
            } catch (err) {
              res.destroy(err as Error);
            }
          }
          nl = buffer.indexOf('\n');
        }
      });
      res.on('end', () => resolve());
      res.on('close', () => resolve());
      res.on('error', (err) => (signal.aborted ? resolve() : reject(err)));
    });
  }

  async #send(path: string, options: RequestOptions): Promise<http.IncomingMessage> {
    const url = new URL(this.server.toString().replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const t = await this.#getTransport();
    let headers = t.headers;
    if (t.dynamicAuth) {
      const fresh: https.RequestOptions = {};
      await this.kubeConfig.applyToHTTPSOptions(fresh);
      headers = { ...(fresh.headers as Record<string, string>) };
    }
    const opts: https.RequestOptions = {
      method: options.method ?? 'GET',
      headers: { ...headers, Accept: 'application/json' },
      // Watches (no timeout) hold their connection for minutes: they get their own agent.
      agent: options.timeoutMs === 0 ? t.watchAgent : t.agent,
      ...(t.auth ? { auth: t.auth } : {}),
    };
    const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    opts.headers = {
      ...(opts.headers as Record<string, string>),
      ...(body ? { 'Content-Type': options.contentType ?? 'application/json', 'Content-Length': body.length } : {}),
    };
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.request(url, { ...opts, signal: options.signal }, resolve);
      const timeout = options.timeoutMs ?? 30_000;
      if (timeout > 0) req.setTimeout(timeout, () => req.destroy(new Error(`timeout after ${timeout} ms`)));
      req.on('error', (err) =>
        reject(new KubeApiError(0, 'Unreachable', `${opts.method} ${path}: ${err.message}`, err)),
      );
      req.end(body);
    });
  }
}

/**
 * Reads the kubeconfig's TLS material (CA, client certificate and key, skip-verify, server name) and fixed headers
 * once, and builds the agents that carry it. With a `proxy-url`, client-node's proxy agent is used as before.
 */
async function buildTransport(kc: KubeConfig, server: URL): Promise<Transport> {
  const o: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(o);
  const tls: https.AgentOptions = {
    ...(o.ca !== undefined ? { ca: o.ca } : {}),
    ...(o.cert !== undefined ? { cert: o.cert } : {}),
    ...(o.key !== undefined ? { key: o.key } : {}),
    ...(o.rejectUnauthorized !== undefined ? { rejectUnauthorized: o.rejectUnauthorized } : {}),
    ...(o.servername !== undefined ? { servername: o.servername } : {}),
  };
  const user = kc.getCurrentUser();
  const viaProxy = kc.getCurrentCluster()?.proxyUrl ? (o.agent as http.Agent | undefined) : undefined;
  const make = (keepAlive: boolean) => {
    if (viaProxy) return viaProxy;
    const pool = keepAlive ? { keepAlive, timeout: IDLE_SOCKET_MS } : { keepAlive };
    return server.protocol === 'https:' ? new https.Agent({ ...tls, ...pool }) : new http.Agent(pool);
  };
  return {
    agent: make(true),
    watchAgent: make(false),
    headers: { ...(o.headers as Record<string, string> | undefined) },
    ...(o.auth ? { auth: o.auth } : {}),
    dynamicAuth: Boolean(user?.exec || user?.authProvider),
  };
}

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    res.on('data', (b: Buffer) => parts.push(b));
    res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    res.on('error', reject);
  });
}

function apiError(status: number, text: string, what: string): KubeApiError {
  let reason = 'Unknown';
  let message = text.slice(0, 500);
  try {
    const s = JSON.parse(text) as { reason?: string; message?: string };
    reason = s.reason ?? reason;
    message = s.message ?? message;
  } catch {
    // not a Status object; keep the raw text
  }
  return new KubeApiError(status, reason, `${what}: ${status} ${message}`);
}
