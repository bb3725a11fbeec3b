/**
 * Structured logging: JSON lines (pino) everywhere, readable colour output when stdout is a terminal.
 * Credentials are redacted wherever they could appear in a logged request or object.
 */
import { type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/** Paths pino blanks out before writing a line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-gitlab-token"]',
  'req.headers["x-hub-signature-256"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.secret',
  '*.secretId',
  '*.privateKey',
  '*.private_key',
  '*.kubeconfig',
  '*.credentials',
];

export interface LoggerOptions {
  level: string;
  /** Pretty-print for a person (default: when stdout is a terminal). */
  pretty?: boolean;
}

/** Creates the process logger. */
export function createLogger({ level, pretty = process.stdout.isTTY === true }: LoggerOptions): Logger {
  return pino({
    level,
    base: { service: 'svc' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } } : {}),
  });
}
