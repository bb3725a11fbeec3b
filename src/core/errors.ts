/**
 * Typed errors with stable codes and chained causes. They become HTTP statuses in exactly one function
 * (`httpStatusOf`) and App conditions in the operator's status stage. Reconcile errors also say what the
 * reconciler should do next (`retry`: transient, try again soon; `wait`: requeue later; `stall`: the user must act).
 */

/** What a reconciler should do after an error. */
export type RetryHint = 'retry' | 'wait' | 'stall';

export interface SvcErrorOptions {
  cause?: unknown;
  retry?: RetryHint;
}

/** Base class of every error svc raises on purpose. `code` is stable and safe to show; `message` never holds a secret. */
export class SvcError extends Error {
  readonly code: string = 'internal';
  readonly retry: RetryHint;

  constructor(message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.retry = options.retry ?? 'retry';
  }
}

/** Bad input from a caller or a spec (400; a reconcile stalls until the user edits the spec). */
export class InputError extends SvcError {
  override readonly code: string = 'invalid_input';
  constructor(message: string, options: SvcErrorOptions = {}) {
    super(message, { retry: 'stall', ...options });
  }
}

/** No credentials, or credentials that are not (or no longer) valid (401). */
export class UnauthenticatedError extends SvcError {
  override readonly code = 'unauthenticated';
}

/** Authenticated, but not allowed (403). */
export class ForbiddenError extends SvcError {
  override readonly code = 'forbidden';
}

/** The thing does not exist, or the caller may not learn that it does (404). */
export class NotFoundError extends SvcError {
  override readonly code = 'not_found';
}

/** A method the path does not serve (405); `allow` lists the ones it does (the `Allow` header). */
export class MethodNotAllowedError extends SvcError {
  override readonly code = 'method_not_allowed';
  readonly allow: readonly string[];
  constructor(message: string, allow: readonly string[]) {
    super(message);
    this.allow = allow;
  }
}

/**
 * Input that matches the API's documented schema but breaks a rule a schema cannot state (a relation between two
 * fields, an address the outbound policy refuses, a kubeconfig's contents) (422). Input the schema refuses is 400.
 */
export class UnprocessableError extends InputError {
  override readonly code = 'unprocessable';
}

/** The request conflicts with current state: duplicates, pending operations (409). */
export class ConflictError extends SvcError {
  override readonly code = 'conflict';
}

/** A request body over its limit (413). */
export class PayloadTooLargeError extends SvcError {
  override readonly code = 'payload_too_large';
}

/** A request body in a media type the route does not take (415). */
export class UnsupportedMediaTypeError extends SvcError {
  override readonly code = 'unsupported_media_type';
}

/** Too many requests from one caller or address (429). */
export class RateLimitedError extends SvcError {
  override readonly code = 'rate_limited';
}

/** A peer svc depends on (registry, git server, remote cluster) failed or answered wrongly (502). */
export class UpstreamError extends SvcError {
  override readonly code = 'upstream_failed';
}

/** A required part is not configured or not ready, e.g. no management cluster (503). */
export class UnavailableError extends SvcError {
  override readonly code = 'unavailable';
}

/** A configuration problem found at start; `problems` lists every one of them. */
export class ConfigError extends SvcError {
  override readonly code = 'invalid_config';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`, { retry: 'stall' });
    this.problems = problems;
  }
}

const STATUS_BY_CODE: Record<string, number> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  upstream_failed: 502,
  unavailable: 503,
};

/** The HTTP status for an error: the mapped status of an SvcError, 500 for anything else. */
export function httpStatusOf(err: unknown): number {
  return err instanceof SvcError ? (STATUS_BY_CODE[err.code] ?? 500) : 500;
}

/** The message of any thrown value, followed by its chain of causes ("a: b: c"). */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
}
