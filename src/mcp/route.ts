/**
 * /mcp: the Model Context Protocol endpoint for agents (contract §5 rules 3 and 9), Streamable HTTP served by the
 * official SDK (`createMcpHandler` from @modelcontextprotocol/server, `toNodeHandler` from @modelcontextprotocol/node)
 * on Fastify through `reply.hijack()`. The API's own onRequest hook has already verified the API key (the SDK does
 * no token verification); this route admits API keys only and hands the SDK the caller, from which each request's
 * server is built with the tools the key may use (src/mcp/server.ts).
 */

import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../api/actor.ts';
import { type Api, principalOf } from '../api/api.ts';
import type { ApiServices } from '../api/services.ts';
import { ForbiddenError } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import { mcpRoute } from './contract.ts';
import { mcpServerFor } from './server.ts';

/** What the route hands the server factory through the SDK's pass-through `authInfo.extra`. */
interface McpRequestExtra {
  actor: Actor;
  signal: AbortSignal;
}

/**
 * Registers POST /mcp. The protocol's stateless mode serves no GET (event stream) or DELETE (session end): they
 * answer 405 with `Allow: POST` like any method a path does not serve.
 */
export async function mcpRoutes(app: Api, services: ApiServices): Promise<void> {
  const logger = app.log as unknown as Logger;
  const handler = createMcpHandler(
    (ctx) => {
      const extra = ctx.authInfo?.extra as McpRequestExtra | undefined;
      // The route always passes the caller; a request reaching the factory without one is a wiring bug.
      if (!extra) throw new Error('MCP request without a verified caller');
      return mcpServerFor(services, extra.actor, logger, extra.signal);
    },
    { onerror: (err) => logger.warn({ err: err.message }, 'MCP request refused') },
  );
  const serveNode = toNodeHandler(handler, { onerror: (err) => logger.error({ err }, 'MCP handler failed') });
  app.addHook('onClose', async () => handler.close());

  /** API keys only, before the request is validated (a session gets 403 whatever it sends). */
  async function keysOnly(request: FastifyRequest): Promise<void> {
    if (!principalOf(request).caller.key) {
      throw new ForbiddenError('the MCP endpoint takes an API key (Authorization: Bearer svc_…)');
    }
  }

  async function serve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { caller } = principalOf(request);
    if (!caller.org) throw new ForbiddenError('the caller belongs to no organization');
    const actor: Actor = { caller, org: caller.org };
    const key = caller.key;
    if (!key) throw new ForbiddenError('the MCP endpoint takes an API key (Authorization: Bearer svc_…)');
    const hangup = new AbortController();
    reply.raw.once('close', () => hangup.abort());
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    const extra: McpRequestExtra = { actor, signal: hangup.signal };
    const raw = Object.assign(request.raw, {
      auth: { token: key.id, clientId: key.id, scopes: [key.role], extra: extra as unknown as Record<string, unknown> },
    });
    await serveNode(raw as never, reply.raw, request.method === 'POST' ? request.body : undefined);
  }

  app.post('/mcp', { config: { mcp: true }, schema: mcpRoute, onRequest: keysOnly }, serve);
}
