/**
 * Outbound HTTP on a user's behalf (secret stores, registries, outbound webhooks, chat notifications) under the
 * SSRF rule of ./addresses.ts:
 * - the URL's scheme is https, or http outside production mode (`requireHttps`);
 * - no user:password@ in URLs (credentials travel in headers, never in URLs that get logged);
 * - every address a host name resolves to is checked at connect time (the check and the connection use the same
 *   lookup, so DNS rebinding cannot slip a refused address in between);
 * - redirects are followed by hand (at most `maxRedirects`), each hop checked again;
 * - one overall timeout per call.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import { addressRefusal, type OutboundScope } from './addresses.ts';
import { OutboundRefusedError, refusalIn } from './errors.ts';

/** Where outbound calls may go and how. */
export interface OutboundPolicy {
  scope: OutboundScope;
  /** Refuse plain http (production mode). */
  requireHttps: boolean;
}

export interface OutboundOptions {
  /** Extra CA certificates (PEM) to trust for this call, e.g. a store's or registry's private CA. */
  ca?: string;
  /** Whole-call timeout including redirects (default 10 s). */
  timeoutMs?: number;
  /** Redirect hops followed (default 5; 0 = return the 3xx answer). */
  maxRedirects?: number;
}

/**
 * Checks a URL against the policy without resolving it: scheme, userinfo, IP literals. Returns the parsed URL or
 * throws OutboundRefusedError with a caller-facing reason. Host names are checked when connecting.
 */
export function checkOutboundURL(url: string | URL, policy: OutboundPolicy): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new OutboundRefusedError(`"${String(url)}" is not a valid URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    throw new OutboundRefusedError(`${u.protocol} URLs are not allowed (https only)`);
  }
  if (u.protocol === 'http:' && policy.requireHttps) {
    throw new OutboundRefusedError(`${u.host}: plain http is refused in production mode (use https)`);
  }
  if (u.username || u.password) throw new OutboundRefusedError('URLs must not carry a user name or password');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (/^[\d.]+$/.test(host) || host.includes(':')) {
    const reason = addressRefusal(host, policy.scope);
    if (reason) throw new OutboundRefusedError(`${u.host}: ${reason}`);
  }
  return u;
}

/**
 * Resolves `host` as the connection will, and throws OutboundRefusedError unless every address passes the policy.
 * For validation at create time (a clear 400 before anything is stored); connections check again by themselves.
 */
export async function checkOutboundHost(host: string, policy: OutboundPolicy): Promise<void> {
  const bare = host.replace(/^\[|\]$/g, '');
  const addresses = /^[\d.]+$/.test(bare) || bare.includes(':') ? [{ address: bare }] : await lookupAll(bare);
  for (const a of addresses) {
    const reason = addressRefusal(a.address, policy.scope);
    if (reason) throw new OutboundRefusedError(`${host}: ${reason}`);
  }
}

function lookupAll(host: string): Promise<dns.LookupAddress[]> {
  return dns.promises.lookup(host, { all: true });
}

/**
 * A lookup that refuses the connection unless every address of the host passes the policy: for connections made
 * by other clients (e.g. Kubernetes clients of registered clusters), so they follow the same rule as outboundFetch.
 */
export function guardedLookup(scope: OutboundScope): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      for (const a of addresses) {
        const reason = addressRefusal(a.address, scope);
        if (reason) return callback(new OutboundRefusedError(`${hostname}: ${reason}`), '', 0);
      }
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }), '', 0);
      if ((options as { all?: boolean }).all) {
        (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      } else {
        callback(null, first.address, first.family);
      }
    });
  };
}

/** Connection pools per scope and CA, so repeated calls keep their connections. */
const agents = new Map<string, Agent>();

function agentFor(scope: OutboundScope, ca: string | undefined): Agent {
  const key = `${scope}\0${ca ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      connect: { lookup: guardedLookup(scope), ...(ca ? { ca } : {}) },
      keepAliveTimeout: 10_000,
    });
    agents.set(key, agent);
  }
  return agent;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * fetch() under the outbound policy (see the module comment). Network failures reject with the underlying error
 * in the cause chain (classify with networkErrorClass); policy refusals reject with OutboundRefusedError itself.
 */
export async function outboundFetch(
  url: string | URL,
  init: RequestInit,
  policy: OutboundPolicy,
  options: OutboundOptions = {},
): Promise<Response> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = init.signal ? AbortSignal.any([init.signal as AbortSignal, timeout]) : timeout;
  const dispatcher = agentFor(policy.scope, options.ca);
  let current = checkOutboundURL(url, policy);
  let request: RequestInit = { ...init };
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetch(current, { ...request, dispatcher, signal, redirect: 'manual' });
    } catch (err) {
      throw refusalIn(err) ?? err;
    }
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || !location || hop >= (options.maxRedirects ?? 5)) return res;
    await res.body?.cancel();
    current = checkOutboundURL(new URL(location, current), policy);
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && request.method === 'POST')) {
      const { body: _body, ...rest } = request;
      request = { ...rest, method: 'GET' };
    }
  }
}
