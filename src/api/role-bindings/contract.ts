/**
 * The contract of /role-bindings: grant a user or team a level (read, sync, admin) at an org, cluster or deployment
 * scope. Not in the contract's tables (it names the bindings, not their routes); see docs/compatibility.md.
 */
import { Type } from 'typebox';
import { LEVELS, SCOPES } from '../../core/permissions.ts';
import { errors } from '../contract/errors.ts';
import { component, Deleted, IdParams, ref, StringEnum, Timestamp } from '../contract/schema.ts';
import { withScope } from '../contract/scope.ts';

export const RoleBinding = component(
  'RoleBinding',
  Type.Object(
    {
      id: Type.String(),
      subject_type: StringEnum(['user', 'team'] as const),
      subject_id: Type.String(),
      scope: StringEnum(SCOPES),
      scope_id: Type.String(),
      level: StringEnum(LEVELS),
      created_at: Timestamp(),
    },
    { additionalProperties: false },
  ),
);

export const RoleBindingRequest = component(
  'RoleBindingRequest',
  withScope(
    {
      subject_type: StringEnum(['user', 'team'] as const),
      subject_id: Type.String({ minLength: 1, maxLength: 100, description: 'a user or team id of the org' }),
      level: StringEnum(LEVELS),
    },
    { scopeRequired: true, description: 'a subject, a level and the scope it holds the level at' },
  ),
);

const tags = ['rbac'];

export const listBindingsRoute = {
  tags,
  summary: 'Role bindings of the caller org (team:read)',
  response: {
    200: Type.Object({ bindings: Type.Array(ref(RoleBinding)) }, { additionalProperties: false }),
    ...errors(),
  },
};
export const createBindingRoute = {
  tags,
  summary:
    'Grant a user or team a level at a scope (team:manage; replaces a binding at the same scope; audited rolebinding.create)',
  body: ref(RoleBindingRequest),
  response: { 201: ref(RoleBinding), ...errors({ 404: 'no such user or team in this organization' }) },
};
export const deleteBindingRoute = {
  tags,
  summary: 'Remove a role binding (team:manage; audited rolebinding.delete)',
  params: IdParams,
  response: {
    200: ref(Deleted),
    ...errors({ 404: 'no such role binding in this organization' }),
  },
};

export const ROLE_BINDING_COMPONENTS = [RoleBinding, RoleBindingRequest];
