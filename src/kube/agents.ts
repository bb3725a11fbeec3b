/**
 * The connection pools of one client: a keep-alive agent for ordinary requests (one TLS handshake per connection,
 * not per request) and a separate agent for watches (long-lived streams must not hold the pool's sockets). Pools
 * are per client certificate: when an exec plugin hands out a new certificate, new pools carry it and the old ones
 * drain (their idle sockets close on their own). With a `proxy-url`, hpagent's CONNECT-tunnelling agents are used.
 */
import http from 'node:http';
import https from 'node:https';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import type { AuthMaterial } from './credentials.ts';
import type { ClusterConfig } from './kubeconfig.ts';

/**
 * Free keep-alive sockets are closed after this idle time, below the usual idle timeouts of API servers and load
 * balancers (60 s and more), so a request is rarely sent on a connection the other side is about to close.
 */
const IDLE_SOCKET_MS = 30_000;

interface Pools {
  /** The client certificate these pools present (empty for none). */
  cert: string;
  agent: http.Agent;
  watchAgent: http.Agent;
}

/** Agents for one ClusterConfig. */
export class Agents {
  readonly #config: ClusterConfig;
  #pools: Pools | undefined;

  constructor(config: ClusterConfig) {
    this.#config = config;
  }

  /** The agent for a request carrying `material`: the watch agent for watches, else the keep-alive pool. */
  for(material: AuthMaterial, watch: boolean): http.Agent {
    const cert = material.cert ?? '';
    if (!this.#pools || this.#pools.cert !== cert) this.#pools = this.#build(material);
    return watch ? this.#pools.watchAgent : this.#pools.agent;
  }

  /** Closes every connection, in use or idle; the next request builds new pools. */
  destroy(): void {
    this.#pools?.agent.destroy();
    this.#pools?.watchAgent.destroy();
    this.#pools = undefined;
  }

  #build(material: AuthMaterial): Pools {
    const c = this.#config;
    const tls: https.AgentOptions = {
      ...(c.ca ? { ca: c.ca } : {}),
      rejectUnauthorized: !c.insecureSkipVerify,
      ...(c.serverName ? { servername: c.serverName } : {}),
      ...(material.cert && material.key ? { cert: material.cert, key: material.key } : {}),
      ...(c.lookup ? { lookup: c.lookup } : {}),
    };
    const secure = c.server.protocol === 'https:';
    const make = (keepAlive: boolean): http.Agent => {
      const pool = keepAlive ? { keepAlive, timeout: IDLE_SOCKET_MS } : { keepAlive };
      if (c.proxyUrl) {
        return secure
          ? new HttpsProxyAgent({ ...tls, ...pool, proxy: c.proxyUrl })
          : new HttpProxyAgent({ ...pool, proxy: c.proxyUrl });
      }
      return secure
        ? new https.Agent({ ...tls, ...pool })
        : new http.Agent({ ...pool, ...(c.lookup ? { lookup: c.lookup } : {}) });
    };
    return { cert: material.cert ?? '', agent: make(true), watchAgent: make(false) };
  }
}
