/**
 * Errors of the Kubernetes layer. `KubeApiError` is the low-level failure of one API call (the HTTP status and the
 * apiserver's own reason and message); `toSvcError` is the one place where it becomes one of svc's typed errors, so
 * the API and the operator say the same thing about the same failure.
 */
import {
  ConflictError,
  InputError,
  NotFoundError,
  type RetryHint,
  SvcError,
  UnavailableError,
  UpstreamError,
} from '../core/errors.ts';

/**
 * A kubeconfig (or the in-cluster environment) that cannot be used: the message names the file or context, the
 * entry and the field that is wrong, and never a credential's value. An InputError: a kubeconfig given through the
 * API is bad input (400); svc's own management kubeconfig failing stops the process at start.
 */
export class KubeconfigError extends InputError {}

/**
 * Credentials that could not be had while running: an exec plugin failed or answered nonsense, a token file cannot
 * be read. Unavailable (503): the cluster cannot be reached with them until that is fixed.
 */
export class CredentialError extends UnavailableError {}

/** A failed API call: `status` is the HTTP status (0 when the server was unreachable), `reason` the API's reason. */
export class KubeApiError extends Error {
  readonly status: number;
  readonly reason: string;
  /** The apiserver's own message (its Status object's `message`), or the transport's error text. */
  readonly detail: string;
  constructor(status: number, reason: string, message: string, options: { cause?: unknown; detail?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KubeApiError';
    this.status = status;
    this.reason = reason;
    this.detail = options.detail ?? message;
  }
}

/** True for a 404 from the API server. */
export const isNotFound = (err: unknown): boolean => err instanceof KubeApiError && err.status === 404;
/** True for a 409 (resourceVersion conflict or already exists). */
export const isConflict = (err: unknown): boolean => err instanceof KubeApiError && err.status === 409;

/**
 * Maps a failed Kubernetes call about `what` (e.g. `app web`) to svc's typed error: 404 → NotFoundError, 409 →
 * ConflictError with the apiserver's message, no answer (connection refused, reset, timeout) → UnavailableError,
 * any other status → UpstreamError carrying the status and the apiserver's message. An SvcError (a kubeconfig or
 * credential plugin problem) passes through unchanged; any other thrown value counts as unreachable. The cause is
 * kept for the logs; messages never carry credentials (the apiserver's messages do not).
 */
export function toSvcError(err: unknown, what: string): SvcError {
  if (err instanceof SvcError) return err;
  if (err instanceof KubeApiError) {
    if (err.status === 404) return new NotFoundError(`${what} not found`, { cause: err });
    if (err.status === 409) return new ConflictError(`${what}: ${err.detail || 'conflict'}`, { cause: err });
    if (err.status === 0) return new UnavailableError(`${what}: cluster unreachable (${err.detail})`, { cause: err });
    return new UpstreamError(`${what}: cluster answered ${err.status} ${err.detail}`.trim(), { cause: err });
  }
  return new UnavailableError(`${what}: cluster unreachable`, { cause: err });
}

/** The retry hint of any error: an SvcError's own, by HTTP status for the Kubernetes API, else transient. */
export function hintOf(err: unknown): RetryHint {
  if (err instanceof SvcError) return err.retry;
  if (err instanceof KubeApiError) {
    // Unreachable (0), throttled, timed out or failing servers are transient; any other refusal (invalid object,
    // unknown kind, forbidden) needs a change in the repository or the cluster: retry at the error period.
    return err.status === 0 || err.status === 408 || err.status === 429 || err.status >= 500 ? 'retry' : 'wait';
  }
  return 'retry';
}

/**
 * True when `err` or a cause along its chain is a KubeApiError without an HTTP status: the cluster did not answer
 * (refused, reset, timed out). For the SyncError reason ClusterUnreachable of remote destinations.
 */
export function isUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 16; depth++) {
    if (e instanceof KubeApiError && e.status === 0) return true;
    e = e instanceof Error ? e.cause : undefined;
  }
  return false;
}
