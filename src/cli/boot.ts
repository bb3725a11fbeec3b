/**
 * Start-up shared by the long-running roles: read the environment and flags once into a Config, create the logger,
 * and stop cleanly on SIGINT/SIGTERM.
 */
import { type Config, dataDirOf, loadConfig, type OperatorFlags } from '../config.ts';
import { ConfigError } from '../core/errors.ts';
import { ensureDevSecrets } from '../dev-secrets.ts';
import { createLogger, type Logger } from '../log.ts';

export interface Booted {
  config: Config;
  logger: Logger;
}

/**
 * Loads the configuration (with generated dev secrets when `allowDevSecrets` and not in production) and creates the
 * logger. On configuration problems prints all of them and exits with status 2.
 */
export function boot(flags: OperatorFlags, allowDevSecrets: boolean): Booted {
  const env = process.env;
  const production = env['NODE_ENV'] === 'production';
  try {
    const devSecrets =
      allowDevSecrets && !production && (!env['AUTH_SECRET'] || !env['SVC_CREDENTIALS_KEY'])
        ? ensureDevSecrets(dataDirOf(env, process.cwd()))
        : undefined;
    const config = loadConfig({ env, flags, cwd: process.cwd(), ...(devSecrets ? { devSecrets } : {}) });
    return { config, logger: createLogger({ level: config.logLevel }) };
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
