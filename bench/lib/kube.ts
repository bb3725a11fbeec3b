/**
 * The benchmarks' own small Kubernetes client: JSON over one keep-alive HTTPS agent with the harness's admin
 * credentials. It creates fixtures and watches for the end condition; what is measured uses svc's own client.
 */
import { Agent, request } from 'node:https';
import type { KubeCredentials } from '../../test/harness/index.ts';

/** A non-2xx answer from the apiserver. */
export class KubeError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'KubeError';
    this.status = status;
  }
}

/** Any Kubernetes object as JSON. */
export interface Obj {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

/** A client bound to one apiserver and one set of admin credentials. */
export class BenchKube {
  readonly #creds: KubeCredentials;
  readonly #agent: Agent;

  constructor(creds: KubeCredentials) {
    this.#creds = creds;
    this.#agent = new Agent({ keepAlive: true, maxSockets: 32 });
  }

  /** One request; resolves with the parsed JSON body, rejects with {@link KubeError} on a non-2xx status. */
  async request<T = unknown>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const { status, text } = await this.#send(method, path, body, contentType);
    if (status < 200 || status >= 300)
      throw new KubeError(status, `${method} ${path}: ${status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** GET of a non-JSON path (e.g. /metrics); resolves with the body text. */
  async text(path: string): Promise<string> {
    const { status, text } = await this.#send('GET', path);
    if (status !== 200) throw new KubeError(status, `GET ${path}: ${status}`);
    return text;
  }

  /**
   * The apiserver's own count of requests it served, by `VERB resource[/subresource]` (from
   * `apiserver_request_total` on /metrics), so two runs can be compared by the work they asked of it.
   */
  async requestCounts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const line of (await this.text('/metrics')).split('\n')) {
      if (!line.startsWith('apiserver_request_total{')) continue;
      const label = (name: string) => new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1] ?? '';
      const sub = label('subresource');
      const key = `${label('verb')} ${label('resource')}${sub ? `/${sub}` : ''}`;
      out[key] = (out[key] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return out;
  }

  /** Creates `obj` at `collectionPath`; an existing object (409) is fine. */
  async create(collectionPath: string, obj: unknown): Promise<void> {
    try {
      await this.request('POST', collectionPath, obj);
    } catch (error) {
      if (!(error instanceof KubeError && error.status === 409)) throw error;
    }
  }

  /**
   * Lists `path` and then watches it from the list's resourceVersion, calling `onObject` for every object seen
   * (ADDED/MODIFIED, and each listed item) until `signal` aborts. A watch that ends is resumed.
   */
  async watch(path: string, query: string, onObject: (obj: Obj) => void, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const list = await this.request<{ items: Obj[]; metadata: { resourceVersion: string } }>(
        'GET',
        `${path}?${query}`,
      );
      for (const item of list.items) onObject(item);
      let rv = list.metadata.resourceVersion;
      while (!signal.aborted) {
        const ended = await this.#watchOnce(
          `${path}?${query}&watch=true&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=240`,
          signal,
          (type, obj) => {
            rv = obj.metadata.resourceVersion ?? rv;
            if (type === 'ADDED' || type === 'MODIFIED') onObject(obj);
          },
        );
        if (ended === 'gone') break;
      }
    }
  }

  #watchOnce(
    pathAndQuery: string,
    signal: AbortSignal,
    onEvent: (type: string, obj: Obj) => void,
  ): Promise<'ended' | 'gone'> {
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(pathAndQuery, this.#creds.serverURL),
        { ...this.#tls(), method: 'GET', headers: this.#headers(), signal },
        (res) => {
          if (res.statusCode === 410) return resolve('gone');
          if (res.statusCode !== 200) return reject(new KubeError(res.statusCode ?? 0, `watch ${pathAndQuery}`));
          let buffer = '';
          let result: 'ended' | 'gone' = 'ended';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffer += chunk;
            for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
              const line = buffer.slice(0, nl);
              buffer = buffer.slice(nl + 1);
              if (!line.trim()) continue;
              const event = JSON.parse(line) as { type: string; object: Obj };
              // An ERROR event carries a Status; 410 Gone means the resourceVersion is too old: relist.
              if (event.type === 'ERROR') result = 'gone';
              else onEvent(event.type, event.object);
            }
          });
          res.on('close', () => resolve(result));
          res.on('error', () => resolve(result));
        },
      );
      req.on('error', (error) => (signal.aborted ? resolve('ended') : reject(error)));
      req.end();
    });
  }

  #tls() {
    const c = this.#creds;
    return { agent: this.#agent, ca: c.caPEM, cert: c.clientCertPEM, key: c.clientKeyPEM };
  }

  #headers(): Record<string, string> {
    return {
      accept: 'application/json',
      ...(this.#creds.token ? { authorization: `Bearer ${this.#creds.token}` } : {}),
    };
  }

  #send(method: string, path: string, body?: unknown, contentType?: string) {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        new URL(path, this.#creds.serverURL),
        {
          ...this.#tls(),
          method,
          headers: {
            ...this.#headers(),
            ...(payload === undefined ? {} : { 'content-type': contentType ?? 'application/json' }),
          },
          timeout: 60_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timeout`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Closes idle connections. */
  close(): void {
    this.#agent.destroy();
  }
}
