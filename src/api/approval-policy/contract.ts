/**
 * The contract of /approval-policy (docs/operator.md "Approval policies"): the org's approval policy, which every
 * App with requiresApproval and no `syncPolicy.approval` of its own follows; and of GET /apps/{ns}/{name}/approvals,
 * the approvals of an App's held sync and who still may approve it.
 */
import { Type } from 'typebox';
import { ApprovalPolicySchema } from '../../core/app-schema.ts';
import { AppParams } from '../apps/contract.ts';
import { errors } from '../contract/errors.ts';
import { component, Nullable, ref, withoutDefaults } from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;
const tags = ['approvals'];

export const ApprovalPolicy = component('ApprovalPolicy', withoutDefaults(ApprovalPolicySchema));

export const OrgApprovalPolicy = component(
  'OrgApprovalPolicy',
  Type.Object(
    { policy: Nullable(ref(ApprovalPolicy), { description: 'the org policy; null when the org has none' }) },
    closed,
  ),
);

export const AppApproval = component(
  'AppApproval',
  Type.Object(
    { user_id: Type.String(), email: Type.String(), at: Type.String({ description: 'RFC 3339' }) },
    { ...closed, description: 'one approval of the held sync' },
  ),
);

export const AppApprovals = component(
  'AppApprovals',
  Type.Object(
    {
      held: Type.Boolean({ description: 'whether a sync is held for approval now' }),
      operation_id: Type.String({ description: 'the held operation; empty when none' }),
      revision: Type.String({ description: 'the staged revision; empty when none' }),
      requested_by: Type.String({ description: 'who requested the held sync (may not approve it)' }),
      required: Type.Integer({ description: 'distinct approvals needed' }),
      approved_by: Type.Array(ref(AppApproval)),
      policy_source: Type.Union([Type.Literal('app'), Type.Literal('org'), Type.Literal('default')]),
      may_approve: Type.String({ description: 'who may approve, in words' }),
      roles: Type.Array(Type.String()),
      teams: Type.Array(Type.String()),
      users: Type.Array(Type.String()),
      expires_at: Nullable(Type.String({ description: 'RFC 3339: when the held sync is dropped' })),
    },
    closed,
  ),
);

export const getApprovalPolicyRoute = {
  tags,
  summary: "The org's approval policy (deployment:read at org scope)",
  response: { 200: ref(OrgApprovalPolicy), ...errors() },
};

export const putApprovalPolicyRoute = {
  tags,
  summary: "Set or clear (policy null) the org's approval policy (org:manage; audited org.approval_policy)",
  body: ref(OrgApprovalPolicy),
  response: { 200: ref(OrgApprovalPolicy), ...errors() },
};

export const appApprovalsRoute = {
  tags: ['apps'],
  summary:
    "Approvals of the app's held sync, the policy in force and who may still approve (deployment:read); held false when no sync waits for approval",
  params: AppParams,
  response: { 200: ref(AppApprovals), ...errors({ 404: 'app not found' }) },
};

export const APPROVAL_COMPONENTS = [ApprovalPolicy, OrgApprovalPolicy, AppApproval, AppApprovals];
