/**
 * The long-running roles of the `svc` executable, each returning a handle that stops it. Each role's code is
 * imported when the role starts, so `svc operator` never loads the API stack (Fastify, Better Auth, the database
 * drivers) and `svc server` never loads the operator: that is memory each process would otherwise carry.
 */
import type { Config } from '../config.ts';
import type { ServerChannel } from '../internal/channel.ts';
import type { Logger } from '../log.ts';

export interface Running {
  stop(): Promise<void>;
}

/** Starts the API/auth/UI server on `config.listen`; `channel` is its side of the operator's internal channel. */
export async function runServer(config: Config, logger: Logger): Promise<Running & { channel: ServerChannel }> {
  const { buildServer } = await import('../server.ts');
  const app = await buildServer({ config, logger });
  await app.listen({ host: config.listen.host || '::', port: config.listen.port });
  return { stop: () => app.close(), channel: app.serverChannel };
}

/**
 * Starts the operator against the management cluster of `config`. `channel` is the server in the same process
 * (`svc start`); without it the operator reaches the server over HTTP when configured to (SVC_SERVER_URL).
 */
export async function runOperator(config: Config, logger: Logger, channel?: ServerChannel): Promise<Running> {
  const { startOperator } = await import('../operator/index.ts');
  return startOperator(config, logger.child({ component: 'operator' }), channel ? { serverChannel: channel } : {});
}
