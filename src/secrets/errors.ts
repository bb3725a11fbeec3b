/**
 * Failures of a secret store, each with the errorClass of contract §4.4 rule 3 taken from the real cause: the
 * network classes from the error chain (src/net/errors.ts), the others from what the store answered.
 */
import { SvcError } from '../core/errors.ts';
import { classifyNetworkFailure, refusalIn } from '../net/errors.ts';
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

/** What a store whose address speaks plain HTTP was asked over https should change. */
const PLAIN_HTTP = 'this server speaks plain HTTP, not TLS; use an http:// address';

/**
 * The StoreError for a failed call to `host`, classified by src/net's one classification (dns, tls, connect,
 * timeout; `connect` when nothing answered for another reason). A refusal by the outbound policy is rethrown as it
 * is (a 400: the address is the caller's input).
 */
export function storeErrorOf(host: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  const refusal = refusalIn(err);
  if (refusal) throw refusal;
  const failure = classifyNetworkFailure(host, err, { plainHttp: PLAIN_HTTP });
  // `refused` was handled above; the contract's store classes have no such value.
  const errorClass: StoreErrorClass = failure.errorClass === 'refused' ? 'provider' : failure.errorClass;
  return new StoreError(errorClass, failure.message, { cause: err });
}
