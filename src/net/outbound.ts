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
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import type { OutboundScope } from './addresses.ts';
import { refusalIn } from './errors.ts';
import { checkOutboundURL, guardedLookup, type OutboundPolicy } from './guard.ts';

export { checkOutboundHost, checkOutboundURL, guardedLookup, type OutboundPolicy } from './guard.ts';

export interface OutboundOptions {
  /** Extra CA certificates (PEM) to trust for this call, e.g. a store's or registry's private CA. */
  ca?: string;
  /** Whole-call timeout including redirects (default 10 s). */
  timeoutMs?: number;
  /** Redirect hops followed (default 5; 0 = return the 3xx answer). */
  maxRedirects?: number;
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
