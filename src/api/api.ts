/**
 * The API's Fastify instance as route plugins see it: typed by the TypeBox schemas of each route
 * (@fastify/type-provider-typebox), so a handler's params, query, body and answers are the schema's types and no
 * route declares them by hand.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawServerDefault } from 'fastify';
import { UnauthenticatedError } from '../core/errors.ts';
import './context.ts';
import type { ApiServices } from './services.ts';
import type { Principal } from './use-case.ts';

/** The /api/v1 Fastify instance with the TypeBox type provider. */
export type Api = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse<IncomingMessage>,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A group of routes under /api/v1, given the API's services. */
export type ApiRoutes = (api: Api, services: ApiServices) => Promise<void>;

/** Who is calling (set by the API's onRequest hook); UnauthenticatedError on a route that was not authenticated. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.caller) throw new UnauthenticatedError('authentication required');
  return { caller: request.caller };
}
