/**
 * Which errors mean "the database cannot be reached right now" (PostgreSQL restarting, failing over, refusing
 * connections): the one error mapping (src/api/error-handler.ts) answers them 503 `{"error": "database unavailable:
 * …"}` instead of a 500, because the request is fine and will work once the server is back (issue 17's fault matrix,
 * test/integration/fault-postgres-restart.test.ts). The pool reconnects by itself on the next query.
 */
import pg from 'pg';
import { UnavailableError } from '../core/errors.ts';

/**
 * SQLSTATE classes and codes of a server that is going away or not accepting sessions: 08 connection exception,
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up / shutting down), 53300
 * too_many_connections.
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;
/** Socket failures while connecting to or talking with the server (the store is the handlers' one raw socket peer). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** node-postgres's own errors for a connection the server dropped, and pg-pool's connect timeout. */
const CLIENT_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

function isUnavailable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e instanceof pg.DatabaseError) return UNAVAILABLE_SQLSTATE.test(e.code ?? '');
  const code = String((e as { code?: unknown }).code ?? '');
  return SOCKET_CODES.has(code) || CLIENT_MESSAGES.test(e.message);
}

/**
 * An UnavailableError (503) naming the database when `err`, or an error along its `cause` chain, says the database
 * cannot be reached; undefined otherwise. The message carries the driver's reason (an address or a server notice,
 * never a credential: connection URLs are not part of node-postgres's messages).
 */
export function databaseUnavailable(err: unknown): UnavailableError | undefined {
  let current: unknown = err;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    if (isUnavailable(current)) {
      // Happy Eyeballs' AggregateError has an empty message; its code still says what happened.
      const reason = current.message || String((current as { code?: unknown }).code);
      return new UnavailableError(`database unavailable: ${reason}`, { cause: err });
    }
    current = current.cause;
  }
  return undefined;
}
