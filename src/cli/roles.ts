/** The long-running roles of the `svc` executable, each returning a handle that stops it. */
import { buildApiServer } from '../api/app.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { startOperator } from '../operator/index.ts';

export interface Running {
  stop(): Promise<void>;
}

/** Starts the API/auth/UI server on `config.listen`. */
export async function runServer(config: Config, logger: Logger): Promise<Running> {
  const app = await buildApiServer({ config, logger });
  await app.listen({ host: config.listen.host || '::', port: config.listen.port });
  return { stop: () => app.close() };
}

/** Starts the operator against the management cluster of `config`. */
export async function runOperator(config: Config, logger: Logger): Promise<Running> {
  return startOperator(config, logger.child({ component: 'operator' }));
}
