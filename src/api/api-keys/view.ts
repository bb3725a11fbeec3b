/** How API keys look in the API: prefix and metadata, never the key or its hash. */
import type { Static } from 'typebox';
import type { ApiKeyRecord } from '../../store/api-keys.ts';
import type { ApiKey } from './contract.ts';

type View = Static<typeof ApiKey>;

export function keyView(k: ApiKeyRecord): View {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    role: k.role as View['role'],
    scope: k.scope as View['scope'],
    scope_id: k.scopeId,
    expires_days:
      k.expiresAt === null ? 0 : Math.round((Date.parse(k.expiresAt) - Date.parse(k.createdAt)) / 86_400_000),
    expires_at: k.expiresAt,
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    revoked: k.revokedAt !== null,
    tools: k.tools as View['tools'],
  };
}
