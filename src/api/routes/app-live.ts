/**
 * /apps routes that read the App's destination on the caller's behalf (`deployment:read`): the diff of what a sync
 * would change (contract §4.2 says 404; svc builds it: docs/compatibility.md), the live resource tree, and Pod logs
 * streamed as text.
 */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../apps/live-contract.ts';
import * as live from '../apps/live-use-cases.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers GET diff, resources and logs of an App. */
export async function appLiveRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/apps/:namespace/:name/diff', { schema: contract.diffRoute }, async (request) =>
    run(services, live.diffApp, principalOf(request), { ...request.params, revision: request.query.revision }),
  );

  api.get('/apps/:namespace/:name/resources', { schema: contract.treeRoute }, async (request) =>
    run(services, live.appTree, principalOf(request), request.params),
  );

  api.get('/apps/:namespace/:name/logs', { schema: contract.logsRoute }, async (request, reply) => {
    const hangup = new AbortController();
    reply.raw.once('close', () => hangup.abort());
    const input = { ...request.params, query: request.query, signal: hangup.signal };
    const log = await run(services, live.appLogs, principalOf(request), input);
    // A broken upstream connection ends the answer rather than failing an answer already under way.
    log.stream.on('error', () => reply.raw.end());
    return reply
      .type('text/plain; charset=utf-8')
      .header('x-svc-pod', log.pod)
      .header('x-svc-container', log.container)
      .header('x-svc-pod-count', String(log.podCount))
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(log.stream);
  });
}
