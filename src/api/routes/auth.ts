/**
 * /auth routes (contract §4.1): the caller, its sessions, can-i, and API keys. Sign-up, sign-in and sign-out live
 * in the auth component under /api/auth/*; /auth/register, /auth/login and /auth/logout do not exist here (404).
 */

import { type Api, principalOf } from '../api.ts';
import * as keyContract from '../api-keys/contract.ts';
import * as keys from '../api-keys/use-cases.ts';
import { keyView } from '../api-keys/view.ts';
import * as contract from '../auth/contract.ts';
import * as auth from '../auth/use-cases.ts';
import { canIView, meView, sessionView } from '../auth/view.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the /auth routes. */
export async function authRoutes(api: Api, services: ApiServices): Promise<void> {
  const sessionOnly = { sessionOnly: true };

  api.get('/auth/me', { schema: contract.meRoute }, async (request) =>
    meView(await run(services, auth.whoAmI, principalOf(request), undefined)),
  );

  api.get('/auth/sessions', { config: sessionOnly, schema: contract.listSessionsRoute }, async (request) => ({
    sessions: (await run(services, auth.listSessions, principalOf(request), undefined)).map(sessionView),
  }));

  api.delete('/auth/sessions/:id', { config: sessionOnly, schema: contract.revokeSessionRoute }, async (request) => {
    await run(services, auth.revokeSession, principalOf(request), request.params.id);
    return { revoked: true };
  });

  api.post('/auth/can-i', { schema: contract.canIRoute }, async (request) =>
    canIView(await run(services, auth.canI, principalOf(request), request.body)),
  );

  api.post('/auth/api-keys', { schema: keyContract.mintKeyRoute }, async (request, reply) => {
    const { record, key } = await run(services, keys.mintApiKey, principalOf(request), request.body);
    return reply.code(201).send({ ...keyView(record), key });
  });

  api.get('/auth/api-keys', { schema: keyContract.listKeysRoute }, async (request) => ({
    api_keys: (await run(services, keys.listApiKeys, principalOf(request), undefined)).map(keyView),
  }));

  api.delete('/auth/api-keys/:id', { schema: keyContract.revokeKeyRoute }, async (request) => {
    await run(services, keys.revokeApiKey, principalOf(request), request.params.id);
    return { revoked: true };
  });
}
