/**
 * Serves the auth component (Better Auth) under /api/auth/*. Better Auth works on Web Requests, so the route hands
 * it the raw body and copies status, headers (every Set-Cookie) and body back. The encapsulated content-type parser
 * keeps bodies raw only inside this plugin.
 *
 * Client address: Better Auth keys its sign-in throttle by the `x-forwarded-for` header. A caller could send any
 * value there and get a fresh bucket per request (throttle bypass, the CVE-2025-61560 class), so the route replaces
 * whatever the caller sent with the address Fastify resolved for the connection (`request.ip`: the socket peer; svc
 * does not configure `trustProxy`).
 */
import type { FastifyInstance } from 'fastify';
import type { AuthComponent } from '../auth/better-auth.ts';
import { AUTH_BASE_PATH } from '../auth/better-auth.ts';
import { checkCookieWrite } from './csrf.ts';

/**
 * Registers /api/auth/* on `app`, forwarding to `auth.handler`. `publicURL` is the origin Better Auth sees; every
 * write (sign-in, sign-up, sign-out, organization changes) must come from one of `origins` with a JSON body or none
 * (src/api/csrf.ts): a cross-site form cannot sign a browser in or out, or act with its session cookie.
 */
export async function mountAuthComponent(
  app: FastifyInstance,
  auth: AuthComponent,
  publicURL: string,
  origins: ReadonlySet<string>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: `${AUTH_BASE_PATH}/*`,
      schema: { hide: true },
      handler: async (request, reply) => {
        checkCookieWrite(request.method, request.headers, origins);
        const headers = new Headers();
        for (const [key, value] of Object.entries(request.headers)) {
          if (value === undefined || key === 'x-forwarded-for') continue;
          for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
        }
        headers.set('x-forwarded-for', request.ip);
        const hasBody = request.method !== 'GET' && typeof request.body === 'string' && request.body !== '';
        const response = await auth.handler(
          new Request(new URL(request.url, publicURL), {
            method: request.method,
            headers,
            body: hasBody ? (request.body as string) : undefined,
          }),
        );
        reply.code(response.status);
        for (const [key, value] of response.headers) {
          if (key.toLowerCase() !== 'set-cookie') reply.header(key, value);
        }
        const cookies = response.headers.getSetCookie();
        if (cookies.length > 0) reply.header('set-cookie', cookies);
        return reply.send(Buffer.from(await response.arrayBuffer()));
      },
    });
  });
}
