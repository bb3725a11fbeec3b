/**
 * /apps read routes that follow what the operator records (contract §4.2): status (optionally waiting for a
 * terminal state), events of the App and its workloads, and the applied-revision history.
 */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../apps/routes-contract.ts';
import * as status from '../apps/status-use-cases.ts';
import { statusView } from '../apps/view.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers GET status, events and history of an App. */
export async function appStatusRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/apps/:namespace/:name/status', { schema: contract.appStatusRoute }, async (request, reply) => {
    // A client that hangs up ends the wait at once.
    const hangup = new AbortController();
    const onClose = () => hangup.abort();
    reply.raw.once('close', onClose);
    try {
      const input = { ...request.params, waitMs: status.waitMsOf(request.query.wait), signal: hangup.signal };
      return statusView(await run(services, status.appStatus, principalOf(request), input));
    } finally {
      reply.raw.off('close', onClose);
    }
  });

  api.get('/apps/:namespace/:name/events', { schema: contract.appEventsRoute }, async (request) => ({
    events: await run(services, status.appEvents, principalOf(request), request.params),
  }));

  api.get('/apps/:namespace/:name/history', { schema: contract.appHistoryRoute }, async (request) =>
    run(services, status.appHistory, principalOf(request), request.params),
  );
}
