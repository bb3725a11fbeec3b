/**
 * Registry failures, each naming its cause (contract §4.4's error classes, reused for registries): the registry
 * cannot be reached (dns, tls, connect, timeout, or refused by svc's outbound policy), it refused the credentials
 * (auth) or the repository (permission), the tag or repository does not exist (notfound), or it answered wrongly
 * (provider). An UpstreamError (502) for callers of the API; for the operator the retry hint says whether to retry
 * soon (a network or server failure) or to wait (a missing tag or rejected credentials: someone must act, but not
 * necessarily on the App's spec).
 */
import { UpstreamError } from '../core/errors.ts';
import { classifyNetworkFailure, type NetworkErrorClass } from '../net/errors.ts';

/** What kind of failure a registry call met. */
export type RegistryErrorClass = NetworkErrorClass | 'auth' | 'permission' | 'notfound' | 'provider';

/** A failed registry call. The message never carries a credential. */
export class RegistryError extends UpstreamError {
  readonly errorClass: RegistryErrorClass;

  constructor(errorClass: RegistryErrorClass, message: string, options: { cause?: unknown } = {}) {
    const transient = errorClass === 'dns' || errorClass === 'connect' || errorClass === 'timeout';
    super(message, { ...options, retry: transient || errorClass === 'provider' ? 'retry' : 'wait' });
    this.errorClass = errorClass;
  }
}

/** What a registry that answered a TLS ClientHello in plain HTTP needs (the registry's `insecure` field). */
const PLAIN_HTTP = 'this registry speaks plain HTTP; set `insecure`';

/**
 * The RegistryError for a request to `host` that failed before any answer (network, TLS, policy), classified by
 * src/net's one classification.
 */
export function networkFailure(host: string, err: unknown): RegistryError {
  const failure = classifyNetworkFailure(host, err, { plainHttp: PLAIN_HTTP });
  return new RegistryError(failure.errorClass, `registry ${failure.message}`, { cause: err });
}
