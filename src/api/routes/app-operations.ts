/**
 * /apps operation and workload-control routes (contract §4.2): sync, deploy, rollback, restart, approve, promote,
 * scale, freeze, unfreeze, release (of a held rollback); terminate (beyond the contract: ends the running operation). One pending operation per
 * App (409 while another is requested, running or held).
 */
import { type Api, principalOf } from '../api.ts';
import * as ops from '../apps/operation-use-cases.ts';
import * as contract from '../apps/routes-contract.ts';
import { freezeApp } from '../apps/use-cases.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the operation routes. */
export async function appOperationRoutes(api: Api, services: ApiServices): Promise<void> {
  // The operations that take nothing but the App.
  const override = (q: { override_windows?: 'true' | 'false' | undefined }) => ({
    override_windows: q.override_windows === 'true',
  });
  api.post('/apps/:namespace/:name/sync', { schema: contract.syncAppRoute }, async (request) =>
    run(services, ops.syncApp, principalOf(request), { ...request.params, ...override(request.query) }),
  );
  for (const [operation, schema, useCase] of [
    ['restart', contract.restartAppRoute, ops.restartApp],
    ['approve', contract.approveAppRoute, ops.approveApp],
    ['terminate', contract.terminateAppRoute, ops.terminateApp],
  ] as const) {
    api.post(`/apps/:namespace/:name/${operation}`, { schema }, async (request) =>
      run(services, useCase, principalOf(request), request.params),
    );
  }
  api.post('/apps/:namespace/:name/deploy', { schema: contract.deployAppRoute }, async (request) =>
    run(services, ops.deployApp, principalOf(request), {
      ...request.params,
      ...override(request.query),
      tag: request.body.tag,
    }),
  );
  api.post('/apps/:namespace/:name/rollback', { schema: contract.rollbackAppRoute }, async (request) =>
    run(services, ops.rollbackApp, principalOf(request), {
      ...request.params,
      ...override(request.query),
      ...request.body,
    }),
  );
  api.post('/apps/:namespace/:name/release', { schema: contract.releaseAppRoute }, async (request) =>
    run(services, ops.releaseApp, principalOf(request), request.params),
  );
  api.post('/apps/:namespace/:name/promote', { schema: contract.promoteAppRoute }, async (request) =>
    run(services, ops.promoteApp, principalOf(request), { ...request.params, to: request.query.to }),
  );
  api.post('/apps/:namespace/:name/scale', { schema: contract.scaleAppRoute }, async (request) =>
    run(services, ops.scaleApp, principalOf(request), { ...request.params, replicas: request.body.replicas }),
  );
  for (const frozen of [true, false]) {
    api.post(
      `/apps/:namespace/:name/${frozen ? 'freeze' : 'unfreeze'}`,
      { schema: contract.freezeAppRoute(frozen) },
      async (request) => {
        const changed = await run(services, freezeApp, principalOf(request), { ...request.params, frozen });
        return { frozen, name: changed.metadata.name };
      },
    );
  }
}
