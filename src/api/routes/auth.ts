/**
 * /auth routes (contract §4.1): the caller, its sessions, can-i, and API keys. Sign-up, sign-in and sign-out live
 * in the auth component under /api/auth/*; /auth/register, /auth/login and /auth/logout do not exist here (404).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canAnywhere, decide, type Grant } from '../../auth/rbac.ts';
import { ForbiddenError, NotFoundError } from '../../core/errors.ts';
import { TOOL_NAMES } from '../../core/mcp-tools.ts';
import { LEVELS } from '../../core/permissions.ts';
import { inTransaction } from '../../store/transaction.ts';
import { keyView, type MintRequest, mintApiKey } from '../api-key-service.ts';
import { callerOf, orgCaller } from '../context.ts';
import { errorResponses } from '../error-responses.ts';
import type { ApiServices } from '../services.ts';
import { parseScope } from './scope-input.ts';

const ScopeEnum = { type: 'string', enum: ['org', 'cluster', 'deployment'] } as const;
const ApiKeyView = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    prefix: { type: 'string' },
    role: { type: 'string', enum: [...LEVELS] },
    scope: ScopeEnum,
    scope_id: { type: 'string' },
    expires_days: { type: 'integer' },
    expires_at: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    last_used_at: { type: ['string', 'null'] },
    revoked: { type: 'boolean' },
    tools: {
      type: ['array', 'null'],
      items: { type: 'string' },
      description: 'MCP tool allowlist (null: every tool the key ceilings allow)',
    },
  },
} as const;
const IdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1 } },
} as const;

/** The can-i answer: allowed, the grants that allow it (org role, or a binding of the user or one of its teams). */
const CanIAnswer = {
  type: 'object',
  properties: {
    allowed: { type: 'boolean' },
    via: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          source: { type: 'string', enum: ['role', 'binding'] },
          role: { type: 'string' },
          binding_id: { type: 'string' },
          subject_type: { type: 'string', enum: ['user', 'team'] },
          subject_id: { type: 'string' },
          scope: ScopeEnum,
          scope_id: { type: 'string' },
          level: { type: 'string', enum: [...LEVELS] },
        },
      },
    },
    reason: { type: 'string', description: 'why not, when denied' },
  },
} as const;

function grantView(g: Grant) {
  if (g.source === 'role') return { source: g.source, role: g.role };
  return {
    source: g.source,
    binding_id: g.bindingId,
    subject_type: g.subjectType,
    subject_id: g.subjectId,
    scope: g.scope,
    scope_id: g.scopeId,
    level: g.level,
  };
}

function toDateISO(v: Date | string | number): string {
  return (v instanceof Date ? v : new Date(v)).toISOString();
}

/** The caller, when it may manage its own keys at some scope (any role may; a key within its ceilings). */
function manageKeys(request: FastifyRequest) {
  const { caller, org } = orgCaller(request);
  if (!canAnywhere(caller, 'apikey:manage')) throw new ForbiddenError('missing permission apikey:manage');
  return { caller, org };
}

/** Registers the /auth routes. */
export async function authRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const { apiKeys, store } = services;

  app.get(
    '/auth/me',
    {
      schema: {
        tags: ['auth'],
        summary: 'The authenticated caller',
        response: {
          200: {
            type: 'object',
            properties: {
              user: {
                type: 'object',
                properties: {
                  id: { type: 'string' },
                  email: { type: 'string' },
                  name: { type: 'string' },
                  role: { type: 'string' },
                  orgId: { type: 'string' },
                },
              },
              org: {
                type: ['object', 'null'],
                properties: { id: { type: 'string' }, slug: { type: 'string' }, name: { type: 'string' } },
              },
              auth: { type: 'string', enum: ['session', 'key'] },
            },
          },
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return {
        user: { ...caller.user, role: caller.role ?? '', orgId: caller.org?.id ?? '' },
        org: caller.org ?? null,
        auth: caller.kind,
      };
    },
  );

  app.get(
    '/auth/sessions',
    {
      config: { sessionOnly: true },
      schema: {
        tags: ['auth'],
        summary: "The caller's live sessions (session only)",
        response: {
          200: {
            type: 'object',
            properties: {
              sessions: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    current: { type: 'boolean' },
                    createdAt: { type: 'string' },
                    expiresAt: { type: 'string' },
                  },
                },
              },
            },
          },
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const rows = await store.db
        .selectFrom('session')
        .select(['id', 'createdAt', 'expiresAt'])
        .where('userId', '=', caller.user.id)
        .execute();
      const now = Date.now();
      const sessions = rows
        .map((r) => ({
          id: r.id,
          current: r.id === caller.sessionId,
          createdAt: toDateISO(r.createdAt),
          expiresAt: toDateISO(r.expiresAt),
        }))
        .filter((s) => Date.parse(s.expiresAt) > now)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      return { sessions };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/auth/sessions/:id',
    {
      config: { sessionOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'Revoke one of the caller sessions (session only); the device loses access at once',
        params: IdParams,
        response: { 200: { type: 'object', properties: { revoked: { type: 'boolean' } } }, ...errorResponses(404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const result = await store.db
        .deleteFrom('session')
        .where('id', '=', request.params.id)
        .where('userId', '=', caller.user.id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw new NotFoundError('session not found');
      return { revoked: true };
    },
  );

  app.post<{ Body: { permission: string; scope?: string; scope_id?: string } }>(
    '/auth/can-i',
    {
      schema: {
        tags: ['auth'],
        summary: 'Whether the caller holds a permission at a scope (the same evaluation every route uses)',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['permission'],
          properties: {
            permission: { type: 'string', pattern: '^[a-z]+:[a-z]+$' },
            scope: ScopeEnum,
            scope_id: { type: 'string' },
          },
        },
        response: { 200: CanIAnswer, ...errorResponses(413, 415) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { scope, scopeId } = parseScope(request.body.scope, request.body.scope_id);
      const decision = decide(caller, request.body.permission, scope, scopeId);
      return {
        allowed: decision.allowed,
        via: decision.grants.map(grantView),
        ...(decision.reason ? { reason: decision.reason } : {}),
      };
    },
  );

  app.post<{ Body: MintRequest }>(
    '/auth/api-keys',
    {
      schema: {
        tags: ['auth'],
        summary: 'Mint an API key; the plaintext key is in this response only',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'role'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            role: { type: 'string', enum: [...LEVELS] },
            scope: ScopeEnum,
            scope_id: { type: 'string' },
            expires_days: { type: 'integer', minimum: 0, maximum: 3650 },
            tools: {
              type: 'array',
              minItems: 1,
              uniqueItems: true,
              items: { type: 'string', enum: [...TOOL_NAMES] },
              description: 'MCP tool allowlist; a key with one works on the MCP endpoint (/api/v1/mcp) only',
            },
          },
        },
        response: {
          201: { ...ApiKeyView, properties: { ...ApiKeyView.properties, key: { type: 'string' } } },
          ...errorResponses(413, 415),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await mintApiKey(store, orgCaller(request), request.body)),
  );

  app.get(
    '/auth/api-keys',
    {
      schema: {
        tags: ['auth'],
        summary: "The caller's API keys in its org (prefix and metadata only)",
        response: {
          200: { type: 'object', properties: { api_keys: { type: 'array', items: ApiKeyView } } },
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { caller, org } = manageKeys(request);
      return { api_keys: (await apiKeys.listForUser(caller.user.id, org.id)).map(keyView) };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/auth/api-keys/:id',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke one of the caller API keys; it stops working on the next request',
        params: IdParams,
        response: { 200: { type: 'object', properties: { revoked: { type: 'boolean' } } }, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { caller, org } = manageKeys(request);
      const record = await apiKeys.getForUser(request.params.id, caller.user.id, org.id);
      if (!record || record.revokedAt !== null) throw new NotFoundError('API key not found');
      await inTransaction(store.db, async (tx) => {
        await tx.apiKeys.revoke(record.id, caller.user.id, org.id);
        await tx.audit.record({
          orgId: org.id,
          userId: caller.user.id,
          action: 'apikey.revoke',
          resourceType: 'apikey',
          resourceId: record.id,
          resourceName: record.name,
          details: { prefix: record.prefix },
        });
      });
      return { revoked: true };
    },
  );
}
