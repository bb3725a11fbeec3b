/**
 * The Fastify instance of the server and what every request goes through: request ids, the one error handler
 * (src/api/error-handler.ts), a span per request (./tracing.ts), 405 for a method a served path does not take, the
 * web UI for pages, and 404 otherwise.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { NotFoundError } from '../../core/errors.ts';
import type { Logger } from '../../log.ts';
import { handleError, handleFrameworkError } from '../error-handler.ts';
import { serveWebUi } from '../web-ui.ts';
import { answerUnservedMethods } from './methods.ts';
import { cachingSerializerFactory } from './serializers.ts';
import { traceRequests } from './tracing.ts';

/** Largest request body (contract §8: cluster registration; the same bound serves every route). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Longest path parameter the router takes (the document bounds every one: names 253, ids 100). */
export const MAX_PARAM_LENGTH = 253;

/** Request ids: the caller's X-Request-Id when it is sane, else a new UUID. */
function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && /^[\w.:-]{1,128}$/.test(header) ? header : crypto.randomUUID();
}

/** The server's Fastify instance with its request-wide hooks; `webDist` is the built web UI to serve. */
export async function createHttpServer(logger: Logger, webDist: string | undefined): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    genReqId: (req) => requestId(req.headers['x-request-id']),
    // Bodies are validated as sent: no type coercion, no silently dropped fields; each error carries its schema, so
    // a message can say what a field is for (src/api/validation-message.ts).
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true, verbose: true } },
    frameworkErrors: handleFrameworkError,
    schemaController: { compilersFactory: { buildSerializer: cachingSerializerFactory } },
  });
  app.decorateRequest('caller', undefined);
  traceRequests(app);
  answerUnservedMethods(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.setErrorHandler(handleError);
  const webPage = await serveWebUi(app, webDist);
  app.setNotFoundHandler((request, reply) => {
    if (webPage(request, reply)) return reply;
    throw new NotFoundError(`no route for ${request.method} ${request.url.split('?')[0]}`);
  });
  return app;
}
