/**
 * A small JSON REST client for one Kubernetes API server, built from a ClusterConfig (./kubeconfig.ts or
 * ./in-cluster.ts; ./connect.ts is the factory). Requests share one keep-alive connection pool, watches use
 * connections of their own (./agents.ts). Credentials are asked for per request, so rotated tokens and exec plugin
 * answers are picked up; a 401 with credentials that can change is retried once with fresh ones. Plain JSON in and
 * out: no generated model classes, so timestamps and unknown kinds pass through untouched. Errors are KubeApiError.
 */
import http from 'node:http';
import https from 'node:https';
import { Agents } from './agents.ts';
import { KubeApiError } from './errors.ts';
import type { ClusterConfig } from './kubeconfig.ts';

export interface RequestOptions {
  method?: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** Idle timeout of the request in ms (default 30 s); 0 marks a watch (no timeout, the watch agent). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** How long the server keeps one watch open; resuming from the last version is cheap. */
const WATCH_SECONDS = 300;

/** A connection to one API server. */
export class KubeClient {
  readonly config: ClusterConfig;
  readonly server: URL;
  readonly #agents: Agents;

  constructor(config: ClusterConfig) {
    this.config = config;
    this.server = config.server;
    this.#agents = new Agents(config);
  }

  /**
   * Drops every open connection: requests in flight fail with KubeApiError(0), watches end (an Informer watches
   * again); later requests connect afresh. For shutdown, and to prove that callers survive a broken connection.
   */
  async dropConnections(): Promise<void> {
    this.#agents.destroy();
  }

  /** Performs one request and parses the JSON answer. Throws KubeApiError. */
  async request<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
    const text = await this.text(path, options);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** Performs one request and answers the body as text (e.g. `/metrics`). Throws KubeApiError on a non-2xx. */
  async text(path: string, options: RequestOptions = {}): Promise<string> {
    const what = `${options.method ?? 'GET'} ${path}`;
    let res = await this.#send(path, options);
    if (res.statusCode === 401 && this.config.credentials.refresh()) {
      res.resume();
      res = await this.#send(path, options);
    }
    const text = await readBody(res, what);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw apiError(status, text, what);
    return text;
  }

  /**
   * Opens a long-lived GET (e.g. Pod logs with `follow`) and answers the response stream once the server said 200;
   * the caller reads or pipes it and aborts `signal` to end it. Throws KubeApiError on any other answer.
   */
  async stream(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    signal: AbortSignal,
  ): Promise<http.IncomingMessage> {
    const res = await this.#send(path, { query, signal, timeoutMs: 0 });
    if (res.statusCode !== 200) {
      if (res.statusCode === 401) this.config.credentials.refresh();
      throw apiError(res.statusCode ?? 0, await readBody(res, `GET ${path}`), `GET ${path}`);
    }
    return res;
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
      query: { timeoutSeconds: WATCH_SECONDS, ...query, watch: true, allowWatchBookmarks: true },
      signal,
      timeoutMs: 0,
    });
    if (res.statusCode !== 200) {
      if (res.statusCode === 401) this.config.credentials.refresh();
      throw apiError(res.statusCode ?? 0, await readBody(res, `WATCH ${path}`), `WATCH ${path}`);
    }
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
    const method = options.method ?? 'GET';
    const url = new URL(this.server.toString().replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const material = await this.config.credentials.current();
    const watch = options.timeoutMs === 0;
    const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const opts: https.RequestOptions = {
      method,
      headers: {
        ...material.headers,
        Accept: 'application/json',
        // Names svc in the apiserver's logs and metrics, and as the field manager of writes that name none.
        'User-Agent': 'svc',
        ...(body ? { 'Content-Type': options.contentType ?? 'application/json', 'Content-Length': body.length } : {}),
      },
      agent: this.#agents.for(material, watch),
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.request(url, opts, resolve);
      // A watch has no request timeout, but a connection silent for longer than the server's own watch timeout
      // is dead (a peer that vanished without closing): end it so the watcher starts over.
      const timeout = watch ? (WATCH_SECONDS + 30) * 1000 : (options.timeoutMs ?? 30_000);
      req.setTimeout(timeout, () => req.destroy(new Error(`no answer for ${timeout} ms`)));
      req.on('error', (err) =>
        reject(
          new KubeApiError(0, 'Unreachable', `${method} ${path}: ${err.message}`, { cause: err, detail: err.message }),
        ),
      );
      req.end(body);
    });
  }
}

function readBody(res: http.IncomingMessage, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    res.on('data', (b: Buffer) => parts.push(b));
    res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    res.on('error', (err) =>
      reject(new KubeApiError(0, 'Unreachable', `${what}: ${err.message}`, { cause: err, detail: err.message })),
    );
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
  return new KubeApiError(status, reason, `${what}: ${status} ${message}`, { detail: message });
}
