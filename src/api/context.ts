/**
 * Per-request identity for route handlers: the authenticated Caller (set by the API's onRequest hook) and the
 * checks every handler states in one line: `authorize(req, permission, scope, scopeId)`.
 */
import type { FastifyRequest } from 'fastify';
import type { Caller, CallerOrg } from '../auth/caller.ts';
import { canI } from '../auth/rbac.ts';
import { ForbiddenError, UnauthenticatedError } from '../core/errors.ts';

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

/** The authenticated caller; throws UnauthenticatedError on a route that was not authenticated. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new UnauthenticatedError('authentication required');
  return request.caller;
}

/** The caller and its org; throws ForbiddenError when the caller belongs to no org. */
export function orgCaller(request: FastifyRequest): { caller: Caller; org: CallerOrg } {
  const caller = callerOf(request);
  if (!caller.org) throw new ForbiddenError('the caller belongs to no organization');
  return { caller, org: caller.org };
}

/** Throws ForbiddenError (naming the permission and where) unless `canI(caller, permission, scope, scopeId)`. */
export function requirePermission(actor: { caller: Caller }, permission: string, scope = 'org', scopeId = ''): void {
  if (!canI(actor.caller, permission, scope, scopeId)) {
    const where = scope === 'org' ? 'in this organization' : `on ${scope} "${scopeId}"`;
    throw new ForbiddenError(`missing permission ${permission} ${where}`);
  }
}

/** Throws ForbiddenError unless `canI(caller, permission, scope, scopeId)`; returns the caller and its org. */
export function authorize(
  request: FastifyRequest,
  permission: string,
  scope = 'org',
  scopeId = '',
): { caller: Caller; org: CallerOrg } {
  const actor = orgCaller(request);
  requirePermission(actor, permission, scope, scopeId);
  return actor;
}
