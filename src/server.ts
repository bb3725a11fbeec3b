/**
 * The HTTP server of `svc server` and `svc start`: the REST API (src/api) with the MCP endpoint for agents
 * (src/mcp) under the same /api/v1 prefix. The API does not import MCP (MCP builds on the API's use-cases), so the two
 * are joined here, above both.
 */
import type { FastifyInstance } from 'fastify';
import { type ApiServerDeps, buildApiServer } from './api/app.ts';
import { mcpRoutes } from './mcp/route.ts';

/** Builds (does not start) the server: buildApiServer with the MCP routes. */
export function buildServer(deps: Omit<ApiServerDeps, 'routes'>): Promise<FastifyInstance> {
  return buildApiServer({ ...deps, routes: [mcpRoutes] });
}
