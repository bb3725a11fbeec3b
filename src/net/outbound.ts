/**
 * Outbound HTTP on a user's behalf (secret stores, registries, outbound webhooks, chat notifications) under the
 * SSRF rule of ./addresses.ts:
 * - the URL's scheme is https, or http outside production mode (`requireHttps`);
 * - no user:password@ in URLs (credentials travel in headers, never in URLs that get logged);
 * - every address a host name resolves to is checked at connect time (the check and the connection use the same
 *   lookup, so DNS rebinding cannot slip a refused address in between);
 * - redirects are followed by hand (at most `maxRedirects`), each hop checked again; a hop to another origin
 *   drops the Authorization header (as browsers do: a chart repository or registry redirecting a download to a
 *   storage host must not receive the repository's credentials);
 * - one overall timeout per call.
 */
import { createHash } from 'node:crypto';
import type { Agent, RequestInit, Response } from 'undici';
import { inSpan, SpanKind } from '../trace.ts';
import type { OutboundScope } from './addresses.ts';
import { refusalIn } from './errors.ts';
import { checkOutboundURL, guardedLookup, type OutboundPolicy } from './guard.ts';

export { checkOutboundHost, checkOutboundURL, guardedLookup, type OutboundPolicy } from './guard.ts';

export interface OutboundOptions {
  /** Extra CA certificates (PEM) to trust for this call, e.g. a store's or registry's private CA. */
  ca?: string;
  /** A TLS client certificate and its key (PEM), presented to servers that ask for one. */
  clientCert?: { cert: string; key: string };
  /** Whole-call timeout including redirects (default 10 s). */
  timeoutMs?: number;
  /** Redirect hops followed (default 5; 0 = return the 3xx answer). */
  maxRedirects?: number;
}

type Undici = typeof import('undici');
let undiciModule: Promise<Undici> | undefined;

/**
 * undici, loaded on the first outbound call: about 29 MiB of resident memory that a process making none (an
 * operator without notifications, registries or chart repositories) should not carry (bench/README.md, issue 29).
 */
function undici(): Promise<Undici> {
  undiciModule ??= import('undici');
  return undiciModule;
}

/** Connection pools per scope and CA, so repeated calls keep their connections. */
const agents = new Map<string, Agent>();

/** Pools with a client certificate are few (one per repository that has one); the oldest is closed beyond this. */
const MAX_AGENTS = 256;

function agentFor(
  { Agent }: Undici,
  scope: OutboundScope,
  ca: string | undefined,
  client: OutboundOptions['clientCert'],
): Agent {
  // The key holds a digest of the client key, never the key itself.
  const clientId = client ? createHash('sha256').update(client.cert).update(client.key).digest('hex') : '';
  const key = `${scope}\0${ca ?? ''}\0${clientId}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      connect: {
        lookup: guardedLookup(scope),
        ...(ca ? { ca } : {}),
        ...(client ? { cert: client.cert, key: client.key } : {}),
      },
      keepAliveTimeout: 10_000,
    });
    agents.set(key, agent);
    if (agents.size > MAX_AGENTS) {
      const [oldest, pool] = agents.entries().next().value ?? [];
      if (oldest !== undefined) agents.delete(oldest);
      void pool?.close().catch(() => undefined);
    }
  }
  return agent;
}

/** The headers of `init` without Authorization (a redirect to another origin). */
function withoutAuthorization(Headers: Undici['Headers'], init: RequestInit): RequestInit {
  const headers = new Headers(init.headers as ConstructorParameters<typeof Headers>[0]);
  headers.delete('authorization');
  return { ...init, headers };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * fetch() under the outbound policy (see the module comment). Network failures reject with the underlying error
 * in the cause chain (classify with networkErrorClass); policy refusals reject with OutboundRefusedError itself.
 */
export function outboundFetch(
  url: string | URL,
  init: RequestInit,
  policy: OutboundPolicy,
  options: OutboundOptions = {},
): Promise<Response> {
  // The span names the host only: a webhook's path or query may be its secret (chat webhook URLs are).
  const host = typeof url === 'string' ? URL.parse(url)?.host : url.host;
  const method = (init.method ?? 'GET').toUpperCase();
  const attributes = { 'http.request.method': method, 'server.address': host ?? '' };
  return inSpan(
    `${method} ${host ?? ''}`.trim(),
    attributes,
    async (span) => {
      const res = await fetchFollowing(url, init, policy, options);
      span.setAttribute('http.response.status_code', res.status);
      return res;
    },
    SpanKind.CLIENT,
  );
}

/** outboundFetch without its span: the request and its redirects, each hop checked against the policy. */
async function fetchFollowing(
  url: string | URL,
  init: RequestInit,
  policy: OutboundPolicy,
  options: OutboundOptions,
): Promise<Response> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = init.signal ? AbortSignal.any([init.signal as AbortSignal, timeout]) : timeout;
  const lib = await undici();
  const dispatcher = agentFor(lib, policy.scope, options.ca, options.clientCert);
  let current = checkOutboundURL(url, policy);
  let request: RequestInit = { ...init };
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await lib.fetch(current, { ...request, dispatcher, signal, redirect: 'manual' });
    } catch (err) {
      throw refusalIn(err) ?? err;
    }
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || !location || hop >= (options.maxRedirects ?? 5)) return res;
    await res.body?.cancel();
    const next = checkOutboundURL(new URL(location, current), policy);
    request = redirected(lib.Headers, request, res.status, next.origin !== current.origin);
    current = next;
  }
}

/**
 * The request a redirect answered with `status` leads to: without Authorization when it goes to another origin, and
 * a GET without body after a 303, or a 301/302 to a POST (as fetch does).
 */
function redirected(
  Headers: Undici['Headers'],
  request: RequestInit,
  status: number,
  crossOrigin: boolean,
): RequestInit {
  const next = crossOrigin ? withoutAuthorization(Headers, request) : request;
  if (status === 303 || ((status === 301 || status === 302) && next.method === 'POST')) {
    const { body: _body, ...rest } = next;
    return { ...rest, method: 'GET' };
  }
  return next;
}
