/** The contract of GET /audit (contract §4.5): the caller org's audit entries, newest first. */
import { Type } from 'typebox';
import { errors } from '../contract/errors.ts';
import { component, OpenObject, PageFields, PageQuery, ref, Timestamp } from '../contract/schema.ts';

export const AuditEntry = component(
  'AuditEntry',
  Type.Object(
    {
      id: Type.Integer(),
      created_at: Timestamp(),
      user_id: Type.String({ description: 'who acted; empty for svc itself' }),
      user_name: Type.Optional(
        Type.String({ description: "the acting user's name; absent for svc itself or a user who no longer exists" }),
      ),
      user_email: Type.Optional(
        Type.String({ description: "the acting user's email; absent for svc itself or a user who no longer exists" }),
      ),
      action: Type.String({ description: 'e.g. app.sync, apikey.create (docs/api.md lists them)' }),
      resource_type: Type.String(),
      resource_id: Type.Optional(Type.String()),
      resource_name: Type.String(),
      details: OpenObject('what the action changed; `tool` names the MCP tool that acted for the user'),
    },
    { additionalProperties: false },
  ),
);

export const AuditPage = component(
  'AuditPage',
  Type.Object({ entries: Type.Array(ref(AuditEntry)), ...PageFields }, { additionalProperties: false }),
);

export const listAuditRoute = {
  tags: ['audit'],
  summary: 'Audit entries of the caller org, newest first (audit:read)',
  querystring: Type.Object(PageQuery, { additionalProperties: false }),
  response: { 200: ref(AuditPage), ...errors() },
};

export const AUDIT_COMPONENTS = [AuditEntry, AuditPage];
