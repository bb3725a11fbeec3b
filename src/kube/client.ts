/**
 * A small JSON REST client for the Kubernetes API built on a kubeconfig (client certificates, bearer tokens and
 * CA handling come from @kubernetes/client-node's KubeConfig). Plain JSON in and out: no generated model classes,
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

/** A connection to one API server. */
export class KubeClient {
  readonly kubeConfig: KubeConfig;
  readonly server: URL;

  constructor(kubeConfig: KubeConfig) {
    this.kubeConfig = kubeConfig;
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
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
    const opts: https.RequestOptions = { method: options.method ?? 'GET', headers: { Accept: 'application/json' } };
    await this.kubeConfig.applyToHTTPSOptions(opts);
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
