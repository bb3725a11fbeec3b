/** The long-running roles of the `svc` executable, each returning a handle that stops it. */
import { buildApiServer } from '../api/app.ts';
import type { Config } from '../config.ts';
import type { ServerChannel } from '../internal/channel.ts';
import type { Logger } from '../log.ts';
import { startOperator } from '../operator/index.ts';

export interface Running {
  stop(): Promise<void>;
}

/** Starts the API/auth/UI server on `config.listen`; `channel` is its side of the operator's internal channel. */
export async function runServer(config: Config, logger: Logger): Promise<Running & { channel: ServerChannel }> {
  const app = await buildApiServer({ config, logger });
  await app.listen({ host: config.listen.host || '::', port: config.listen.port });
  return { stop: () => app.close(), channel: app.serverChannel };
}

/**
 * Starts the operator against the management cluster of `config`. `channel` is the server in the same process
 * (`svc start`); without it the operator reaches the server over HTTP when configured to (SVC_SERVER_URL).
 */
export async function runOperator(config: Config, logger: Logger, channel?: ServerChannel): Promise<Running> {
  return startOperator(config, logger.child({ component: 'operator' }), channel ? { serverChannel: channel } : {});
}
