/**
 * Per-request identity: the authenticated Caller (set by the API's onRequest hook, src/api/server/api-scope.ts) and
 * the route options that decide how a route authenticates. Routes read the caller through `principalOf`
 * (src/api/api.ts) and authorize only through the use-case pipeline (src/api/use-case.ts).
 */
import type { Caller } from '../auth/caller.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | undefined;
  }
  interface FastifyContextConfig {
    /** No credentials needed (health, OpenAPI). */
    public?: boolean;
    /** Refused to API-key callers (contract §5.4). */
    sessionOnly?: boolean;
    /** The MCP endpoint: the one route API keys with a tool allowlist may call. */
    mcp?: boolean;
    /** An HTML form of svc's own takes cookie-authenticated form posts here (src/api/csrf.ts). */
    formPost?: boolean;
  }
}
