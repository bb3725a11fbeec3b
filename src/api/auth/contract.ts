/**
 * The contract of the caller's own /auth routes (contract §4.1): who it is, its sessions, and can-i. API keys are in
 * ../api-keys/contract.ts; sign-up, sign-in and sign-out live in the auth component under /api/auth/*.
 */
import { Type } from 'typebox';
import { LEVELS, ORG_ROLES, SCOPES } from '../../core/permissions.ts';
import { errors } from '../contract/errors.ts';
import { component, IdParams, Nullable, ref, StringEnum, Timestamp } from '../contract/schema.ts';
import { withScope } from '../contract/scope.ts';

export const Me = component(
  'Me',
  Type.Object(
    {
      user: Type.Object(
        {
          id: Type.String(),
          email: Type.String(),
          name: Type.String(),
          role: Type.String({ description: 'the org role (Owner, Admin, Contributor, Viewer); empty without an org' }),
          orgId: Type.String({ description: 'empty without an org' }),
        },
        { additionalProperties: false },
      ),
      org: Nullable(
        Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() }, { additionalProperties: false }),
      ),
      auth: StringEnum(['session', 'key'] as const),
    },
    { additionalProperties: false, description: 'the authenticated caller' },
  ),
);

export const Session = component(
  'Session',
  Type.Object(
    { id: Type.String(), current: Type.Boolean(), createdAt: Timestamp(), expiresAt: Timestamp() },
    { additionalProperties: false },
  ),
);

export const CanIRequest = component(
  'CanIRequest',
  withScope(
    { permission: Type.String({ pattern: '^[a-z]+:[a-z]+$', maxLength: 64, description: 'e.g. deployment:sync' }) },
    { scopeRequired: false, description: 'a permission and the scope to check it at (default org)' },
  ),
);

/** A grant that allows a permission: the caller's org role, or a role binding of the user or one of its teams. */
export const Grant = component(
  'Grant',
  Type.Union([
    Type.Object({ source: Type.Literal('role'), role: StringEnum(ORG_ROLES) }, { additionalProperties: false }),
    Type.Object(
      {
        source: Type.Literal('binding'),
        binding_id: Type.String(),
        subject_type: StringEnum(['user', 'team'] as const),
        subject_id: Type.String(),
        scope: StringEnum(SCOPES),
        scope_id: Type.String(),
        level: StringEnum(LEVELS),
      },
      { additionalProperties: false },
    ),
  ]),
);

export const CanIAnswer = component(
  'CanIAnswer',
  Type.Object(
    {
      allowed: Type.Boolean(),
      via: Type.Array(ref(Grant), { description: 'the grants that allow it (empty when denied)' }),
      reason: Type.Optional(Type.String({ description: 'why not, when denied' })),
    },
    { additionalProperties: false },
  ),
);

const tags = ['auth'];

export const meRoute = { tags, summary: 'The authenticated caller', response: { 200: ref(Me), ...errors() } };
export const listSessionsRoute = {
  tags,
  summary: "The caller's live sessions (session only)",
  response: { 200: Type.Object({ sessions: Type.Array(ref(Session)) }, { additionalProperties: false }), ...errors() },
};
export const revokeSessionRoute = {
  tags,
  summary: 'Revoke one of the caller sessions (session only); the device loses access at once',
  params: IdParams,
  response: {
    200: Type.Object({ revoked: Type.Boolean() }, { additionalProperties: false }),
    ...errors({ 404: 'no such session of the caller' }),
  },
};
export const canIRoute = {
  tags,
  summary: 'Whether the caller holds a permission at a scope (the same evaluation every route uses)',
  body: ref(CanIRequest),
  response: { 200: ref(CanIAnswer), ...errors() },
};

export const AUTH_COMPONENTS = [Me, Session, CanIRequest, Grant, CanIAnswer];
