/**
 * The client's connection to svc's REST API: the generated client (src/client) with `Authorization: Bearer svc_…`,
 * every failure turned into a CliError carrying the server's own `{"error"}` message and the exit code its status
 * means (./errors.ts). Nothing here prints.
 */
import { createSvcClient, type Failure, type SvcClient } from '../../client/client.ts';
import { CliError, EXIT, exitCodeOfStatus } from './errors.ts';

/** A client of one server: `GET`, `POST`, `PATCH`, `DELETE` by the document's paths, each answering its 2xx body. */
export type ApiClient = SvcClient;

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS)',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
};

/** Why a fetch failed before any answer, in words (the cause's code when known). */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? '';
  return NETWORK_CODES[code] ?? cause?.message ?? (err as Error).message;
}

/**
 * A client of `server` authenticating with `apiKey`. Each call answers the parsed body of a 2xx; CliError with the
 * server's message otherwise (exit code by status), when the server cannot be reached (exit 1), or without an API key
 * (exit 3, before anything is sent).
 */
export function apiClient(server: string, apiKey: string | undefined): ApiClient {
  return createSvcClient({
    baseUrl: server,
    ...(apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : {}),
    failure: (failure: Failure) =>
      new CliError(
        failure.message ??
          `${failure.status} ${failure.statusText || 'unexpected answer'} from ${server} (is it an svc server?)`,
        exitCodeOfStatus(failure.status),
      ),
    unreachable: (error) => new CliError(`cannot reach ${server}: ${networkReason(error)}`, EXIT.failed),
    middleware: [
      {
        onRequest() {
          if (!apiKey) throw new CliError('not logged in: run `svc login <server-url>`, or set SVC_API_KEY', EXIT.auth);
        },
      },
    ],
  });
}
