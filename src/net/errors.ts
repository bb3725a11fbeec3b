/**
 * What kind of network failure an error is, from the real cause (Node and undici error codes along the `cause`
 * chain), and the words for it: the one classification behind the `errorClass` of secret-store tests (contract §4.4
 * rule 3) and of registry tests, and the cause named by registry, webhook and notification errors.
 */
import { describeError, UnprocessableError } from '../core/errors.ts';

/** Network failure classes; `refused` is svc's own outbound policy saying no (see ./addresses.ts). */
export type NetworkErrorClass = 'dns' | 'tls' | 'connect' | 'timeout' | 'refused';

/**
 * An outbound call refused by the outbound address policy. From a caller's input it is a 422: the policy is the
 * server's configuration (SVC_OUTBOUND_SCOPE), so the API document cannot state it.
 */
export class OutboundRefusedError extends UnprocessableError {}

const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA']);
const TIMEOUT = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** Connection failures, each with the words that say which. */
const CONNECT: Record<string, string> = {
  ECONNREFUSED: 'connection refused (nothing listens on that port)',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed by the server',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed by the server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
};
/**
 * What OpenSSL says when the answer to a TLS ClientHello is not TLS at all: the server speaks plain HTTP (its
 * "HTTP/1.1 400" read as a TLS record header).
 */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST']);
const TLS = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

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

/** What callers may say instead of svc's own words for a cause they know the remedy of. */
export interface NetworkHints {
  /** For a plain-HTTP server asked over TLS (default: "TLS handshake failed: the server speaks plain HTTP, …"). */
  plainHttp?: string;
}

/** A recognised cause: its class and the words for it. */
interface Cause {
  errorClass: NetworkErrorClass;
  sentence: string;
}

function tlsSentence(code: string): string {
  if (code === 'CERT_HAS_EXPIRED') return 'TLS handshake failed (certificate expired)';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'TLS handshake failed (certificate does not name this host)';
  return 'TLS handshake failed (certificate not trusted or invalid)';
}

function causeOf(e: unknown, hints: NetworkHints): Cause | undefined {
  if (e instanceof OutboundRefusedError) return { errorClass: 'refused', sentence: e.message };
  if (!(e instanceof Error)) return undefined;
  const code = String((e as { code?: unknown }).code ?? '');
  if (DNS.has(code)) return { errorClass: 'dns', sentence: 'host name could not be resolved' };
  if (TIMEOUT.has(code) || e.name === 'TimeoutError') return { errorClass: 'timeout', sentence: 'timed out' };
  const connect = CONNECT[code];
  if (connect) return { errorClass: 'connect', sentence: connect };
  if (NOT_TLS.has(code)) {
    const sentence = hints.plainHttp ?? 'TLS handshake failed: the server speaks plain HTTP, not TLS (use http://)';
    return { errorClass: 'tls', sentence };
  }
  if (TLS.test(code)) return { errorClass: 'tls', sentence: tlsSentence(code) };
  // undici's fetch never connects to the Fetch standard's "bad ports" (1, 7, 9, …, 6000, 6665–6669, …) and says
  // only "bad port"; without this the cause would read "fetch failed".
  if (e.message === 'bad port') {
    return {
      errorClass: 'connect',
      sentence: 'no connection attempted: the port is one the Fetch standard blocks (a "bad port"); use another port',
    };
  }
  return undefined;
}

/** One network failure as svc reports it: what kind it is, and a caller-facing sentence naming the host. */
export interface NetworkFailure {
  errorClass: NetworkErrorClass;
  /** `<host>: <why>` (a refusal's own message as it is); never a credential. */
  message: string;
}

/**
 * The one classification of a failed outbound call (secret stores, registries, webhooks, notifications): the first
 * recognised cause along `err`'s chain (Node and undici error codes), else `connect` with the chain's own words
 * (the call failed before any answer came). `hints` lets a caller name the remedy it knows.
 */
export function classifyNetworkFailure(host: string, err: unknown, hints: NetworkHints = {}): NetworkFailure {
  for (const e of chain(err)) {
    const cause = causeOf(e, hints);
    if (!cause) continue;
    return {
      errorClass: cause.errorClass,
      message: cause.errorClass === 'refused' ? cause.sentence : `${host}: ${cause.sentence}`,
    };
  }
  return { errorClass: 'connect', message: `${host}: ${describeError(err)}` };
}

/** The class of the first recognised network failure in `err`'s cause chain, or undefined when there is none. */
export function networkErrorClass(err: unknown): NetworkErrorClass | undefined {
  for (const e of chain(err)) {
    const cause = causeOf(e, {});
    if (cause) return cause.errorClass;
  }
  return undefined;
}

/** The OutboundRefusedError inside `err`'s cause chain, if any (undici wraps it in "fetch failed"). */
export function refusalIn(err: unknown): OutboundRefusedError | undefined {
  return chain(err).find((e): e is OutboundRefusedError => e instanceof OutboundRefusedError);
}

/** A short caller-facing sentence for a network failure of `host`, e.g. "vault.example: timed out". */
export function describeNetworkFailure(host: string, err: unknown, hints: NetworkHints = {}): string {
  return classifyNetworkFailure(host, err, hints).message;
}
