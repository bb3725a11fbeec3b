/**
 * The HTTP application of `svc server` and `svc start`: health probes, the REST API under /api/v1, JSON only, with
 * every error shaped by ./error-handler.ts.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { NotFoundError, UnavailableError } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import { handleError } from './error-handler.ts';

/** Message of every /apps answer while no management cluster is configured. */
export const NO_MGMT_CLUSTER_MESSAGE =
  'no management cluster configured: set SVC_MGMT_KUBECONFIG to the path of a kubeconfig for the management cluster (for a local one, run `npm run cluster`)';

export interface ApiServerDeps {
  config: Config;
  logger: Logger;
}

/** Builds (does not start) the API server. */
export async function buildApiServer({ config, logger }: ApiServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
    genReqId: () => crypto.randomUUID(),
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request) => {
    throw new NotFoundError(`no route for ${request.method} ${request.url.split('?')[0]}`);
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => ({ status: 'ready' }));

  await app.register(
    async (api) => {
      if (!config.mgmtKubeconfig) {
        api.all('/apps', async () => {
          throw new UnavailableError(NO_MGMT_CLUSTER_MESSAGE);
        });
        api.all('/apps/*', async () => {
          throw new UnavailableError(NO_MGMT_CLUSTER_MESSAGE);
        });
      }
    },
    { prefix: '/api/v1' },
  );
  return app;
}
