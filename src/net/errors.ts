/**
 * What kind of network failure an error is, from the real cause (Node and undici error codes along the `cause`
 * chain): the `errorClass` of secret-store tests (contract §4.4 rule 3) and the cause named by registry and
 * webhook errors.
 */
import { UnprocessableError } from '../core/errors.ts';

/** Network failure classes; `refused` is svc's own outbound policy saying no (see ./addresses.ts). */
export type NetworkErrorClass = 'dns' | 'tls' | 'connect' | 'timeout' | 'refused';

/**
 * An outbound call refused by the outbound address policy. From a caller's input it is a 422: the policy is the
 * server's configuration (SVC_OUTBOUND_SCOPE), so the API document cannot state it.
 */
export class OutboundRefusedError extends UnprocessableError {}

const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA']);
const CONNECT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Every error along the cause chain, AggregateErrors expanded (Happy Eyeballs reports one error per address). */
function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 16) {
    const e = queue.shift();
    if (e === undefined || e === null) continue;
    out.push(e);
    if (e instanceof AggregateError) queue.push(...e.errors);
    if (e instanceof Error) queue.push(e.cause);
  }
  return out;
}

function classOf(e: unknown): NetworkErrorClass | undefined {
  if (e instanceof OutboundRefusedError) return 'refused';
  if (!(e instanceof Error)) return undefined;
  const code = String((e as { code?: unknown }).code ?? '');
  if (DNS.has(code)) return 'dns';
  if (TIMEOUT.has(code) || e.name === 'TimeoutError') return 'timeout';
  if (CONNECT.has(code)) return 'connect';
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)) return 'tls';
  return undefined;
}

/** The class of the first recognised network failure in `err`'s cause chain, or undefined when there is none. */
export function networkErrorClass(err: unknown): NetworkErrorClass | undefined {
  for (const e of chain(err)) {
    const c = classOf(e);
    if (c) return c;
  }
  return undefined;
}

/** The OutboundRefusedError inside `err`'s cause chain, if any (undici wraps it in "fetch failed"). */
export function refusalIn(err: unknown): OutboundRefusedError | undefined {
  return chain(err).find((e): e is OutboundRefusedError => e instanceof OutboundRefusedError);
}

const SENTENCES: Record<NetworkErrorClass, string> = {
  dns: 'host name could not be resolved',
  tls: 'TLS handshake failed (certificate not trusted or invalid)',
  connect: 'connection refused or reset',
  timeout: 'timed out',
  refused: 'address refused by the outbound policy',
};

/** A short caller-facing sentence for a network failure of `host`, e.g. "vault.example: timed out". */
export function describeNetworkFailure(host: string, err: unknown): string {
  const refusal = refusalIn(err);
  if (refusal) return refusal.message;
  const c = networkErrorClass(err);
  return c ? `${host}: ${SENTENCES[c]}` : `${host}: ${err instanceof Error ? err.message : String(err)}`;
}
