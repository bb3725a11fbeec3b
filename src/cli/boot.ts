/**
 * Start-up shared by the long-running roles: read the environment and flags once into a Config, create the logger,
 * and stop cleanly on SIGINT/SIGTERM.
 */
import { type Config, dataDirOf, loadConfig, type OperatorFlags } from '../config.ts';
import { ConfigError } from '../core/errors.ts';
import { ensureDevSecrets } from '../dev-secrets.ts';
import { createLogger, type Logger } from '../log.ts';
import { startTracing } from '../trace-sdk.ts';

export interface Booted {
  config: Config;
  logger: Logger;
  /** Flushes the spans not yet exported and stops tracing (nothing to do when OTEL_EXPORTER_OTLP_ENDPOINT is unset). */
  stopTracing: () => Promise<void>;
}

/** The long-running role being started: what it may generate and what it must be given. */
export type Role = 'start' | 'server' | 'operator';

/**
 * Loads the configuration and creates the logger. Outside production, `svc start` and `svc server` read the dev
 * secrets of the data directory when AUTH_SECRET or SVC_CREDENTIALS_KEY is unset (generating them on first use), so
 * `svc server` on the data directory `svc start` made opens its sessions and sealed credentials; in production both
 * must be given; `svc operator` needs none. On configuration problems prints all of them and exits with status 2.
 * Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (src/trace-sdk.ts).
 */
export async function boot(flags: OperatorFlags, role: Role): Promise<Booted> {
  // The operator signs no sessions and opens no sealed credentials: it never needs them (see loadConfig).
  const allowDevSecrets = role !== 'operator';
  const env = process.env;
  const production = env['NODE_ENV'] === 'production';
  try {
    const devSecrets =
      allowDevSecrets && !production && (!env['AUTH_SECRET'] || !env['SVC_CREDENTIALS_KEY'])
        ? ensureDevSecrets(dataDirOf(env, process.cwd()))
        : undefined;
    const config = loadConfig({
      env,
      flags,
      cwd: process.cwd(),
      requireSecrets: role !== 'operator',
      ...(devSecrets ? { devSecrets } : {}),
    });
    const logger = createLogger({ level: config.logLevel });
    const stop = await startTracing(role, env);
    if (stop) logger.info({ endpoint: env['OTEL_EXPORTER_OTLP_ENDPOINT'] }, 'tracing: exporting spans over OTLP');
    const stopTracing = async () => {
      await stop?.().catch((err: unknown) => logger.warn({ err }, 'tracing: the last spans were not exported'));
    };
    return { config, logger, stopTracing };
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`svc: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

/** Runs `stop` once on SIGINT or SIGTERM, then exits. A second signal exits at once. */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'stopping');
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
