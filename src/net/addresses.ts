/**
 * Which network addresses svc may call on a user's behalf (secret stores, registries, outbound webhooks, chat
 * notifications): the SSRF rule. Pure; the network-facing side is ./outbound.ts.
 *
 * Scopes, from narrowest to widest:
 * - `public`: globally routable addresses only.
 * - `private`: also private ranges (RFC 1918, CGNAT 100.64/10, IPv6 unique-local fc00::/7), where in-cluster
 *   services such as Vault live. The production default.
 * - `loopback`: also loopback (127/8, ::1), for development and tests. The default outside production.
 * Never allowed in any scope: unspecified (0.0.0.0, ::), link-local (169.254/16 — cloud metadata endpoints —
 * and fe80::/10), multicast, broadcast and reserved ranges.
 */
import { BlockList, isIP } from 'node:net';

/** How far outbound calls may reach (see the module comment). */
export type OutboundScope = 'public' | 'private' | 'loopback';
export const OUTBOUND_SCOPES: readonly OutboundScope[] = ['public', 'private', 'loopback'];

function blockList(v4: [string, number][], v6: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
}

const NEVER = blockList(
  [
    ['0.0.0.0', 8],
    ['169.254.0.0', 16],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ],
  [
    ['::', 128],
    ['fe80::', 10],
    ['ff00::', 8],
    ['2001:db8::', 32],
    ['100::', 64],
  ],
);
const LOOPBACK = blockList([['127.0.0.0', 8]], [['::1', 128]]);
const PRIVATE = blockList(
  [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['100.64.0.0', 10],
  ],
  [['fc00::', 7]],
);

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), else the address unchanged. */
function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1] ?? address;
}

/**
 * Why `address` (an IP literal) may not be called in `scope`, or undefined when it may. The reason is safe to
 * show to callers.
 */
export function addressRefusal(address: string, scope: OutboundScope): string | undefined {
  const ip = unmapped(address.replace(/^\[|\]$/g, ''));
  const family = isIP(ip);
  if (family === 0) return `"${address}" is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (NEVER.check(ip, type)) return `address ${ip} is link-local, unspecified or reserved and is never called`;
  if (LOOPBACK.check(ip, type)) {
    return scope === 'loopback' ? undefined : `address ${ip} is loopback, refused by the outbound policy (${scope})`;
  }
  if (PRIVATE.check(ip, type)) {
    return scope === 'public' ? `address ${ip} is private, refused by the outbound policy (public)` : undefined;
  }
  return undefined;
}
