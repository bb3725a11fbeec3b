/**
 * The API-key use-cases (contract §4.1, §2.8): mint, list and revoke the caller's keys. Minting is authorized
 * (`apikey:manage`) at the new key's own scope and bounded by the minting key's ceilings; the key and its audit entry
 * commit together. Used by POST /auth/api-keys and by the CLI's browser login (routes/cli-login.ts) alike.
 */
import { ForbiddenError, NotFoundError } from '../../core/errors.ts';
import { type Level, scopeContains } from '../../core/permissions.ts';
import type { ApiKeyRecord } from '../../store/api-keys.ts';
import { parseScope } from '../contract/scope-input.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';

/** What a caller asks for when minting a key. */
export interface MintRequest {
  name: string;
  role: Level;
  scope?: string | undefined;
  scope_id?: string | undefined;
  expires_days?: number | undefined;
  /** MCP tool allowlist; a key with one works on the MCP endpoint only. */
  tools?: string[] | undefined;
}

const LEVEL_RANK: Record<Level, number> = { read: 1, sync: 2, admin: 3 };

/** A key caller may only mint keys inside its own role, scope and tool allowlist: a key never widens its reach. */
function checkCeilings(ctx: UseCaseContext, request: MintRequest, scope: ReturnType<typeof parseScope>): void {
  const key = ctx.actor.caller.key;
  if (!key) return;
  if (LEVEL_RANK[request.role] > LEVEL_RANK[key.role]) {
    throw new ForbiddenError(`an API key with role ${key.role} cannot mint a ${request.role} key`);
  }
  if (!scopeContains({ scope: key.scope, scopeId: key.scopeId }, scope)) {
    throw new ForbiddenError('an API key cannot mint a key outside its own scope');
  }
  const own = key.tools;
  if (own && (!request.tools || request.tools.some((t) => !own.includes(t)))) {
    throw new ForbiddenError('an API key with a tool allowlist cannot mint a key beyond it');
  }
}

/** Mints a key for the caller in its org: the record and the plaintext key (the only time it exists). */
export const mintApiKey = useCase({
  permission: 'apikey:manage',
  where: { input: (request: MintRequest) => parseScope(request.scope, request.scope_id) },
  act: (ctx, request): Promise<{ record: ApiKeyRecord; key: string }> => {
    const scope = parseScope(request.scope, request.scope_id);
    checkCeilings(ctx, request, scope);
    const tools = request.tools ? [...new Set(request.tools)] : undefined;
    return ctx.write(async (tx) => {
      const created = await tx.apiKeys.create({
        userId: ctx.actor.caller.user.id,
        orgId: ctx.actor.org.id,
        name: request.name,
        role: request.role,
        scope: scope.scope,
        scopeId: scope.scopeId,
        expiresDays: request.expires_days ?? 0,
        tools: tools ?? null,
      });
      const r = created.record;
      await tx.record({
        action: 'apikey.create',
        resourceType: 'apikey',
        resourceId: r.id,
        resourceName: r.name,
        details: {
          role: r.role,
          scope: scope.scope,
          scope_id: scope.scopeId,
          prefix: r.prefix,
          expires_at: r.expiresAt,
          ...(tools ? { tools } : {}),
        },
      });
      return created;
    });
  },
});

/** The caller's keys in its org (any role may manage its own keys; a key within its ceilings). */
export const listApiKeys = useCase({
  permission: 'apikey:manage',
  where: 'anywhere',
  act: (ctx, _input: undefined) => ctx.services.apiKeys.listForUser(ctx.actor.caller.user.id, ctx.actor.org.id),
});

/** Revokes one of the caller's live keys; 404 for any other. */
export const revokeApiKey = useCase({
  permission: 'apikey:manage',
  where: 'anywhere',
  act: async (ctx, id: string) => {
    const { caller, org } = ctx.actor;
    const record = await ctx.services.apiKeys.getForUser(id, caller.user.id, org.id);
    if (!record || record.revokedAt !== null) throw new NotFoundError('API key not found');
    await ctx.write(async (tx) => {
      await tx.apiKeys.revoke(record.id, caller.user.id, org.id);
      await tx.record({
        action: 'apikey.revoke',
        resourceType: 'apikey',
        resourceId: record.id,
        resourceName: record.name,
        details: { prefix: record.prefix },
      });
    });
  },
});
