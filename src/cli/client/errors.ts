/**
 * Exit codes of the `svc` client commands (documented in docs/cli.md) and the one error type that carries them.
 * Every failure a command reports is a CliError: its message is printed alone (never a stack) and the process exits
 * with its code.
 */

export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** An operation failed: the server refused or failed it (409, 5xx), it ended Failed/Degraded, a wait timed out, the server could not be reached. */
  failed: 1,
  /** Usage: an unknown command or option, a missing or malformed argument, input the server rejected as invalid (400, 413, 415, 422). */
  usage: 2,
  /** Authentication or authorization: not logged in, an invalid, expired or revoked key (401), a missing permission (403). */
  auth: 3,
  /** Not found (404): no such app, key or route on this server. */
  notFound: 4,
  /** `svc app diff` only: a sync would change something (kubectl diff's 1). */
  differences: 1,
  /** `svc app diff` and `svc preview` only: the diff could not be had for a reason other commands exit 1 for (5xx, 409, unreachable). */
  diffFailed: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure to report to the user: the message, and the exit code it means. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** The exit code an HTTP error status means. */
export function exitCodeOfStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 400 || status === 413 || status === 415 || status === 422) return EXIT.usage;
  return EXIT.failed;
}
