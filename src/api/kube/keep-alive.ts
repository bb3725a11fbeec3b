/**
 * A KubeConfig whose API calls share keep-alive connections. @kubernetes/client-node 2.0.1 builds a new undici Agent
 * for every call (KubeConfig.applySecurityAuthentication → createDispatcher, not cached), so every request opened a
 * new TCP and TLS connection. This subclass applies the same credentials and TLS settings through the class's public
 * methods and hands out one Agent per distinct TLS material (a rotated client certificate file gets a new Agent).
 * Proxied clusters keep the library's own path.
 */
import { createHash } from 'node:crypto';
import type { AgentOptions, RequestOptions } from 'node:https';
import { KubeConfig, type RequestContext } from '@kubernetes/client-node';
import { Agent } from 'undici';

type Material = string | Buffer | Array<string | Buffer> | undefined;

function digestOf(parts: Material[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    for (const piece of Array.isArray(part) ? part : [part]) {
      hash.update(piece === undefined ? '\0undefined' : piece);
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}

/** KubeConfig for long-running clients: API clients made from it reuse connections. Call close() when done. */
export class KeepAliveKubeConfig extends KubeConfig {
  readonly #agents = new Map<string, Agent>();

  /** Sets the call's headers (token, basic auth, impersonation) and a shared keep-alive dispatcher. */
  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    const cluster = this.getCurrentCluster();
    if (cluster?.proxyUrl) return super.applySecurityAuthentication(context);
    const opts: RequestOptions = {};
    await this.applyToHTTPSOptions(opts);
    if (typeof opts.auth === 'string') {
      context.setHeaderParam('Authorization', `Basic ${Buffer.from(opts.auth).toString('base64')}`);
    }
    for (const [key, value] of Object.entries(opts.headers ?? {})) context.setHeaderParam(key, `${value}`);
    const tls: AgentOptions = {};
    for (const key of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const) {
      if (opts[key] !== undefined) Object.assign(tls, { [key]: opts[key] });
    }
    const options = this.createDispatcherOptions(cluster, tls);
    if (options.type === 'none') return;
    if (options.type !== 'agent') return super.applySecurityAuthentication(context);
    const id = digestOf([
      cluster?.server,
      tls.ca as Material,
      tls.cert as Material,
      tls.key as Material,
      tls.pfx as Material,
      tls.passphrase,
      String(tls.rejectUnauthorized),
      tls.servername ?? undefined,
    ]);
    let agent = this.#agents.get(id);
    if (!agent) {
      // Agents of replaced material are closed once their requests finish.
      for (const old of this.#agents.values()) void old.close().catch(() => undefined);
      this.#agents.clear();
      agent = new Agent({ connect: options.connect });
      this.#agents.set(id, agent);
    }
    context.setDispatcher(agent);
  }

  /** Closes the shared connections. */
  async close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all(agents.map((a) => a.close()));
  }
}
