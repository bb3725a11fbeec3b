/**
 * A span for every request the server answers (docs/operator.md "Tracing"): `<METHOD> <route>`, a child of the
 * caller's trace when it sends `traceparent` (the operator's internal calls do), with the handler's own spans
 * beneath it. A no-op while tracing is off (src/trace.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { endServerSpan, type Span, startServerSpan, withSpan } from '../../trace.ts';

/** Adds the request span hooks to `app`. */
export function traceRequests(app: FastifyInstance): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    // The route's pattern, never the path: a path names resources, and a query may carry a token.
    const route = request.routeOptions.url ?? 'unmatched';
    const span = startServerSpan(`${request.method} ${route}`, request.headers, {
      'http.request.method': request.method,
      'http.route': route,
    });
    spans.set(request, span);
    // The rest of the request runs inside the span's context, so what the handler does is traced beneath it.
    withSpan(span, done);
  });
  app.addHook('onResponse', async (request, reply) => {
    const span = spans.get(request);
    if (span) endServerSpan(span, reply.statusCode);
  });
}
