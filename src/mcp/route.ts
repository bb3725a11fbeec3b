/**
 * /mcp: the Model Context Protocol endpoint for agents (contract §5 rules 3 and 9), Streamable HTTP served by the
 * official SDK (`createMcpHandler` from @modelcontextprotocol/server, `toNodeHandler` from @modelcontextprotocol/node)
 * on Fastify through `reply.hijack()`. The API's own onRequest hook has already verified the API key (the SDK does
 * no token verification); this route admits API keys only and hands the SDK the caller, from which each request's
 * server is built with the tools the key may use (src/mcp/server.ts).
 */

import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../api/actor.ts';
import { ErrorBody } from '../api/apps/schemas.ts';
import { orgCaller } from '../api/context.ts';
import type { ApiServices } from '../api/services.ts';
import { ForbiddenError } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import { mcpServerFor } from './server.ts';
import { toolServices } from './tools.ts';

/** What the route hands the server factory through the SDK's pass-through `authInfo.extra`. */
interface McpRequestExtra {
  actor: Actor;
  signal: AbortSignal;
}

/**
 * The protocol's own error answer: once the SDK has the request (after authentication) it refuses with a JSON-RPC 2.0
 * error object (405 for GET/DELETE in stateless mode, 406 without the right Accept, 415 without a JSON body, 400 for
 * a malformed message), not with svc's `{"error": string}`; the document states both forms (found by the API
 * fuzzer, test/integration/api-fuzz.test.ts; docs/compatibility.md "MCP errors").
 */
const JsonRpcErrorBody = {
  type: 'object',
  required: ['jsonrpc', 'error'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
    },
    id: { type: ['string', 'integer', 'null'] },
  },
} as const;

const errors = Object.fromEntries(
  [400, 401, 403, 404, 405, 406, 413, 415, 500].map((status) => [
    status,
    {
      description: 'svc error, or the protocol JSON-RPC error once the SDK has the request',
      anyOf: [ErrorBody, JsonRpcErrorBody],
    },
  ]),
);

/** Registers POST, GET and DELETE /mcp (GET and DELETE answer as the protocol's stateless mode says: 405). */
export async function mcpRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const tools = toolServices(services);
  const logger = app.log as unknown as Logger;
  const handler = createMcpHandler(
    (ctx) => {
      const extra = ctx.authInfo?.extra as McpRequestExtra | undefined;
      // The route always passes the caller; a request reaching the factory without one is a wiring bug.
      if (!extra) throw new Error('MCP request without a verified caller');
      return mcpServerFor(tools, extra.actor, logger, extra.signal);
    },
    { onerror: (err) => logger.warn({ err: err.message }, 'MCP request refused') },
  );
  const serveNode = toNodeHandler(handler, { onerror: (err) => logger.error({ err }, 'MCP handler failed') });
  app.addHook('onClose', async () => handler.close());

  async function serve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const actor = orgCaller(request);
    const key = actor.caller.key;
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

  const schema = {
    tags: ['mcp'],
    summary:
      'Model Context Protocol (Streamable HTTP, stateless) for agents; API keys only. tools/list shows the tools the key may use (role and scope ceilings, tool allowlist); any other tools/call is a JSON-RPC error',
    response: {
      200: { description: 'a JSON-RPC response (application/json) or a stream of them (text/event-stream)' },
      202: { description: 'a notification or response accepted' },
      ...errors,
    },
  };
  app.post(
    '/mcp',
    {
      config: { mcp: true },
      schema: {
        ...schema,
        body: {
          description: 'a JSON-RPC 2.0 request or notification',
          anyOf: [
            { type: 'object', additionalProperties: true },
            { type: 'array', items: { type: 'object' } },
          ],
        },
      },
    },
    serve,
  );
  app.get('/mcp', { config: { mcp: true }, schema }, serve);
  app.delete('/mcp', { config: { mcp: true }, schema }, serve);
}
