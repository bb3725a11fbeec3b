/**
 * The one place errors become HTTP responses: `{"error": "<message>"}` with the status of contract §7.
 * Messages of unexpected errors are not shown to callers (they may hold internals); they are logged instead.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusOf, SvcError } from '../core/errors.ts';

/** Fastify's own client errors (bad JSON, body too large, wrong content type) keep their 4xx status and message. */
function fastifyClientStatus(err: unknown): number | undefined {
  const status = (err as FastifyError).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/** Fastify error handler: maps any thrown value to `{"error"}` plus its status. */
export function handleError(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const clientStatus = err instanceof SvcError ? undefined : fastifyClientStatus(err);
  const status = clientStatus ?? httpStatusOf(err);
  if (status >= 500) {
    if (err instanceof SvcError) request.log.warn({ code: err.code, msg: err.message }, 'request failed');
    else request.log.error({ err }, 'request failed');
  }
  const message =
    err instanceof SvcError || clientStatus !== undefined ? (err as Error).message : 'internal server error';
  void reply.status(status).send({ error: message });
}
