/**
 * Failures of a secret store, each with the errorClass of contract §4.4 rule 3 taken from the real cause: the
 * network classes from the error chain (src/net/errors.ts), the others from what the store answered.
 */
import { SvcError } from '../core/errors.ts';
import { describeNetworkFailure, networkErrorClass, refusalIn } from '../net/errors.ts';
import type { StoreErrorClass } from './providers.ts';

/**
 * A store that could not be used: `errorClass` says why. Its message is safe to show and to record (it names the
 * store's host, mount, path or key, never a credential or a value). A 502 when it reaches an HTTP caller; a reconcile
 * retries network failures soon and the others at the error period (the store, not the App, must change).
 */
export class StoreError extends SvcError {
  override readonly code = 'upstream_failed';
  readonly errorClass: StoreErrorClass;

  constructor(errorClass: StoreErrorClass, message: string, options: { cause?: unknown } = {}) {
    const transient = errorClass === 'dns' || errorClass === 'connect' || errorClass === 'timeout';
    super(message, { ...options, retry: transient ? 'retry' : 'wait' });
    this.errorClass = errorClass;
  }
}

/**
 * The StoreError for a failed call to `host`: the network class of the cause chain (dns, tls, connect, timeout),
 * else `provider`. A refusal by the outbound policy is rethrown as it is (a 400: the address is the caller's input).
 */
export function storeErrorOf(host: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  const refusal = refusalIn(err);
  if (refusal) throw refusal;
  const c = networkErrorClass(err);
  const errorClass: StoreErrorClass = c === undefined || c === 'refused' ? 'provider' : c;
  return new StoreError(errorClass, describeNetworkFailure(host, err), { cause: err });
}
