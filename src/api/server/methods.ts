/**
 * 405 Method Not Allowed: a request whose path the server serves, with a method it does not serve there, answers
 * 405 with an `Allow` header listing the methods it does (RFC 9110 §15.5.6) and `{"error"}`, instead of 404. The
 * routes are collected as they are registered; their paths (`/api/v1/teams/:id`) become patterns matched against
 * the request path once the router found no route.
 */
import type { FastifyInstance } from 'fastify';
import { MethodNotAllowedError } from '../../core/errors.ts';

/** A path pattern, how many of its segments are literal, and the methods served on it. */
interface ServedPath {
  pattern: RegExp;
  literals: number;
  methods: Set<string>;
}

/** `/a/:b/*` → /^\/a\/[^/]+\/.*$/ */
function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((part) => {
      if (part === '*') return '.*';
      if (part.startsWith(':')) return '[^/]+';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * Registers the hooks on the root instance (before any route): every route registered afterwards, in any plugin,
 * is collected, and a request the router did not match is answered 405 when its path is served with other methods.
 */
export function answerUnservedMethods(app: FastifyInstance): void {
  const served = new Map<string, ServedPath>();
  app.addHook('onRoute', (route) => {
    const literals = route.url.split('/').filter((p) => p !== '' && !p.startsWith(':') && p !== '*').length;
    const entry = served.get(route.url) ?? { pattern: patternOf(route.url), literals, methods: new Set<string>() };
    for (const method of [route.method].flat()) entry.methods.add(method);
    served.set(route.url, entry);
  });
  app.addHook('onRequest', async (request) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0] ?? '';
    // The path's own routes are those of the most specific pattern that matches it (`/secret-stores/providers`
    // rather than `/secret-stores/:id`), as the document lists them.
    const matching = [...served.values()].filter((s) => s.pattern.test(path));
    const best = Math.max(...matching.map((s) => s.literals));
    const allow = new Set<string>(matching.filter((s) => s.literals === best).flatMap((s) => [...s.methods]));
    if (allow.size === 0 || allow.has(request.method)) return;
    const methods = [...allow].sort();
    throw new MethodNotAllowedError(`${request.method} is not served on ${path}; use ${methods.join(', ')}`, methods);
  });
}
