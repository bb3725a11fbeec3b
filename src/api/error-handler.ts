/**
 * The one place errors become HTTP responses: `{"error": "<message>"}` with the status of contract §7.
 * SvcErrors map through `httpStatusOf`; Fastify's own client errors (schema validation, malformed JSON, body limit,
 * media type) keep their 4xx status with a readable message naming the field; messages of unexpected errors are not
 * shown to callers (they may hold internals), they are logged instead; the database being unreachable is a 503
 * (src/store/unavailable.ts). Every 5xx is logged with its whole cause
 * chain (`describeError`: messages only, which never hold a secret by SvcError's contract), so an operator can tell
 * why a request failed.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeError, httpStatusOf, InputError, MethodNotAllowedError, SvcError } from '../core/errors.ts';
import { databaseUnavailable } from '../store/unavailable.ts';
import { type AjvIssue, describeIssues } from './validation-message.ts';

/** Sends `err` as `{"error"}` with its status. */
export function handleError(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
  if (err instanceof SvcError) {
    const status = httpStatusOf(err);
    if (status >= 500) request.log.warn({ code: err.code, err: describeError(err) }, 'request failed');
    if (err instanceof MethodNotAllowedError) void reply.header('allow', err.allow.join(', '));
    void reply.code(status).send({ error: err.message });
    return;
  }
  const fe = err as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (fe.validation) {
    const context = fe.validationContext ?? 'body';
    void reply.code(400).send({ error: describeIssues(context, fe.validation).join('; ') });
    return;
  }
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const message =
      fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? 'request body too large'
        : fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'request bodies must be JSON (Content-Type: application/json)'
          : fe.message;
    void reply.code(status).send({ error: message });
    return;
  }
  // The database restarting or unreachable: the request may be retried as is (503), not an internal fault.
  const unavailable = databaseUnavailable(err);
  if (unavailable) {
    handleError(unavailable, request, reply);
    return;
  }
  request.log.error({ err }, 'request failed');
  void reply.code(500).send({ error: 'internal server error' });
}

/**
 * Fastify's `frameworkErrors`: errors the router raises before any route runs (a path that does not decode, a path
 * parameter over the router's length limit) become a 400 `{"error"}` like any other invalid input, instead of
 * Fastify's own `{"error","code","message","statusCode"}` body with a 400 or 414 no route documents (found by the
 * API fuzzer, test/integration/api-fuzz.test.ts).
 */
export function handleFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'a path parameter is too long'
      : err.code === 'FST_ERR_BAD_URL'
        ? 'the request path is not a valid URL'
        : err.message;
  handleError(new InputError(message), request, reply);
}
