/**
 * Minting API keys (contract §4.1, §2.8): authorize → create the key and its `apikey.create` audit entry in one
 * transaction → present. Used by POST /auth/api-keys and by the CLI's browser login (routes/cli-login.ts), so a key
 * minted either way obeys the same ceilings and is audited the same.
 */
import type { Caller, CallerOrg } from '../auth/caller.ts';
import { ForbiddenError, InputError } from '../core/errors.ts';
import { isToolName } from '../core/mcp-tools.ts';
import { type Level, scopeContains } from '../core/permissions.ts';
import type { ApiKeyRecord } from '../store/api-keys.ts';
import type { Store } from '../store/database.ts';
import { inTransaction } from '../store/transaction.ts';
import { requirePermission } from './context.ts';
import { parseScope } from './routes/scope-input.ts';

/** What a caller asks for when minting a key (the POST /auth/api-keys body). */
export interface MintRequest {
  name: string;
  role: Level;
  scope?: string;
  scope_id?: string;
  expires_days?: number;
  /** MCP tool allowlist; a key with one works on the MCP endpoint only. */
  tools?: string[];
}

const LEVEL_RANK: Record<Level, number> = { read: 1, sync: 2, admin: 3 };

/** An API key as the API shows it: prefix and metadata, never the key or its hash. */
export function keyView(k: ApiKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    role: k.role,
    scope: k.scope,
    scope_id: k.scopeId,
    expires_days:
      k.expiresAt === null ? 0 : Math.round((Date.parse(k.expiresAt) - Date.parse(k.createdAt)) / 86_400_000),
    expires_at: k.expiresAt,
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    revoked: k.revokedAt !== null,
    tools: k.tools,
  };
}

/** The tool allowlist of a request: undefined without one; InputError for unknown names or an empty list. */
function parseTools(tools: string[] | undefined): string[] | undefined {
  if (tools === undefined) return undefined;
  if (tools.length === 0) throw new InputError('tools must name at least one MCP tool, or be left out');
  const unknown = tools.filter((t) => !isToolName(t));
  if (unknown.length > 0) throw new InputError(`unknown MCP tool(s): ${unknown.join(', ')}`);
  return [...new Set(tools)];
}

/**
 * Mints a key for `actor` in its org, returning the view plus the plaintext key (the only time it exists).
 * Authorized (`apikey:manage`) at the new key's own scope; a key caller may only mint keys inside its own role,
 * scope and tool allowlist, so a key never widens its own reach. 400 on a bad scope or tool list, 403 otherwise.
 */
export async function mintApiKey(
  store: Store,
  actor: { caller: Caller; org: CallerOrg },
  request: MintRequest,
): Promise<ReturnType<typeof keyView> & { key: string }> {
  const { caller, org } = actor;
  const { scope, scopeId } = parseScope(request.scope, request.scope_id);
  const tools = parseTools(request.tools);
  requirePermission(actor, 'apikey:manage', scope, scopeId);
  if (caller.key) {
    if (LEVEL_RANK[request.role] > LEVEL_RANK[caller.key.role]) {
      throw new ForbiddenError(`an API key with role ${caller.key.role} cannot mint a ${request.role} key`);
    }
    if (!scopeContains({ scope: caller.key.scope, scopeId: caller.key.scopeId }, { scope, scopeId })) {
      throw new ForbiddenError('an API key cannot mint a key outside its own scope');
    }
    const own = caller.key.tools;
    if (own && (!tools || tools.some((t) => !own.includes(t)))) {
      throw new ForbiddenError('an API key with a tool allowlist cannot mint a key beyond it');
    }
  }
  // The key and its audit entry commit together: a failed audit write leaves no key.
  const { record, key } = await inTransaction(store.db, async (tx) => {
    const created = await tx.apiKeys.create({
      userId: caller.user.id,
      orgId: org.id,
      name: request.name,
      role: request.role,
      scope,
      scopeId,
      expiresDays: request.expires_days ?? 0,
      tools: tools ?? null,
    });
    const r = created.record;
    await tx.audit.record({
      orgId: org.id,
      userId: caller.user.id,
      action: 'apikey.create',
      resourceType: 'apikey',
      resourceId: r.id,
      resourceName: r.name,
      details: {
        role: r.role,
        scope,
        scope_id: scopeId,
        prefix: r.prefix,
        expires_at: r.expiresAt,
        ...(tools ? { tools } : {}),
      },
    });
    return created;
  });
  return { ...keyView(record), key };
}
