/**
 * The outbound policy's checks without an HTTP client (./outbound.ts builds its fetch on them): URL checks, the
 * create-time host check, and the guarded lookup other clients connect through (the Kubernetes clients of
 * registered clusters), so the operator applies the policy without loading undici.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressRefusal, type OutboundScope } from './addresses.ts';
import { OutboundRefusedError } from './errors.ts';

/** Where outbound calls may go and how. */
export interface OutboundPolicy {
  scope: OutboundScope;
  /** Refuse plain http (production mode). */
  requireHttps: boolean;
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
      const refusal = err ?? lookupRefusal(hostname, addresses, scope);
      if (refusal) return callback(refusal, '', 0);
      const first = addresses[0] as dns.LookupAddress;
      if ((options as { all?: boolean }).all) {
        (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      } else {
        callback(null, first.address, first.family);
      }
    });
  };
}

/** Why `addresses` of `hostname` may not be connected to (an address outside the scope, or none), else undefined. */
function lookupRefusal(hostname: string, addresses: dns.LookupAddress[], scope: OutboundScope): Error | undefined {
  for (const a of addresses) {
    const reason = addressRefusal(a.address, scope);
    if (reason) return new OutboundRefusedError(`${hostname}: ${reason}`);
  }
  if (addresses.length === 0) return Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' });
  return undefined;
}
