/** The contract of /auth/api-keys (contract §4.1, §5.3): mint, list and revoke the caller's API keys. */
import { Type } from 'typebox';
import { TOOL_NAMES } from '../../core/mcp-tools.ts';
import { LEVELS, SCOPES } from '../../core/permissions.ts';
import { errors } from '../contract/errors.ts';
import { component, extended, IdParams, Nullable, ref, StringEnum, Timestamp } from '../contract/schema.ts';
import { withScope } from '../contract/scope.ts';

const keyFields = {
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'the first characters of the key, to tell keys apart' }),
  role: StringEnum(LEVELS, { description: 'role ceiling' }),
  scope: StringEnum(SCOPES, { description: 'scope ceiling' }),
  scope_id: Type.String(),
  expires_days: Type.Integer({ minimum: 0, description: '0: never expires' }),
  expires_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  last_used_at: Nullable(Timestamp()),
  revoked: Type.Boolean(),
  tools: Nullable(Type.Array(StringEnum(TOOL_NAMES)), {
    description: 'MCP tool allowlist (null: every tool the key ceilings allow)',
  }),
};

export const ApiKey = component(
  'ApiKey',
  Type.Object(keyFields, { additionalProperties: false, description: 'an API key: prefix and metadata only' }),
);

export const MintedApiKey = extended('MintedApiKey', ApiKey, {
  key: Type.String({ description: 'the key itself (`svc_…`); shown in this answer only' }),
});

export const ApiKeyRequest = component(
  'ApiKeyRequest',
  withScope(
    {
      name: Type.String({ minLength: 1, maxLength: 100 }),
      role: StringEnum(LEVELS, { description: 'role ceiling; a key caller may mint up to its own' }),
      expires_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650, description: '0 (default): never' })),
      tools: Type.Optional(
        Type.Array(StringEnum(TOOL_NAMES), {
          minItems: 1,
          uniqueItems: true,
          description: 'MCP tool allowlist; a key with one works on the MCP endpoint (/api/v1/mcp) only',
        }),
      ),
    },
    { scopeRequired: false, description: 'the key to mint; its scope ceiling defaults to the org' },
  ),
);

const tags = ['auth'];

export const mintKeyRoute = {
  tags,
  summary: 'Mint an API key (apikey:manage at its scope; audited apikey.create); the key is in this answer only',
  body: ref(ApiKeyRequest),
  response: { 201: ref(MintedApiKey), ...errors() },
};
export const listKeysRoute = {
  tags,
  summary: "The caller's API keys in its org (prefix and metadata only)",
  response: { 200: Type.Object({ api_keys: Type.Array(ref(ApiKey)) }, { additionalProperties: false }), ...errors() },
};
export const revokeKeyRoute = {
  tags,
  summary: 'Revoke one of the caller API keys (audited apikey.revoke); it stops working on the next request',
  params: IdParams,
  response: {
    200: Type.Object({ revoked: Type.Boolean() }, { additionalProperties: false }),
    ...errors({ 404: 'no such live API key of the caller' }),
  },
};

export const API_KEY_COMPONENTS = [ApiKey, MintedApiKey, ApiKeyRequest];
