/**
 * Serves the web UI (web/dist, built by scripts/build-web.ts) on the API's own origin: hashed assets under
 * /assets/ cached for a year, and index.html for every other GET that asks for a page (the UI routes in the
 * browser), with a Content-Security-Policy that allows scripts from this origin only. Paths under /api/ and
 * /internal/ never fall back to the page: they answer JSON as before.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import staticFiles from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `npm run build:web` puts the UI. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** The policy of every page: no inline or foreign script, no framing, no plugins. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // The diff and graph views set styles from script; no stylesheet from elsewhere.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>svc</title>
<p>The web UI is not built in this checkout: run <code>npm run build:web</code> (<code>npm start</code> does it by itself), then reload.</p>
<p>The API is served under <a href="/api/v1/openapi.json">/api/v1</a>.</p></html>`;

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-cache');
}

/**
 * Registers the assets and returns the page fallback: `(request, reply) => true` when it answered the request with
 * the UI page (a GET or HEAD for HTML outside /api/ and /internal/), false to let the caller answer 404.
 */
export async function serveWebUi(
  app: FastifyInstance,
  dist = WEB_DIST,
): Promise<(request: FastifyRequest, reply: FastifyReply) => boolean> {
  const built = existsSync(join(dist, 'index.html'));
  if (built) {
    await app.register(staticFiles, {
      root: join(dist, 'assets'),
      prefix: '/assets/',
      wildcard: false,
      index: false,
      decorateReply: false,
      // Asset names carry their content hash: they never change.
      setHeaders: (res) => {
        res.header('cache-control', 'public, max-age=31536000, immutable');
        res.header('x-content-type-options', 'nosniff');
      },
    });
  }
  // Read once: a rebuilt UI is picked up by restarting the server, as with the code itself.
  const page = built ? readFileSync(join(dist, 'index.html')) : Buffer.from(NOT_BUILT);
  return (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    const path = request.url.split('?')[0] ?? '';
    if (path.startsWith('/api/') || path === '/api' || path.startsWith('/internal/') || path.startsWith('/assets/')) {
      return false;
    }
    const accept = request.headers.accept ?? '';
    if (accept !== '' && !accept.includes('text/html') && !accept.includes('*/*')) return false;
    void pageHeaders(reply)
      .code(built ? 200 : 503)
      .send(page);
    return true;
  };
}
