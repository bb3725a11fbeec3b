/**
 * The approval use-cases (docs/operator.md "Approval policies"): read and set the org's approval policy
 * (`deployment:read` / `org:manage` at org scope; audited `org.approval_policy`), and the approvals of an App's held
 * sync with who still may approve it (`deployment:read` on the App).
 */
import type { AppResource, ApprovalPolicy } from '../../core/app-schema.ts';
import {
  approvalsOf,
  approversText,
  effectivePolicy,
  expiresAt,
  heldForApproval,
  requiredApprovals,
} from '../../core/approvals.ts';
import { orgApprovalPolicy, putOrgApprovalPolicy } from '../../store/org-policies.ts';
import { appScope, locateApp } from '../apps/access.ts';
import type { AppRef } from '../apps/scope.ts';
import { useCase } from '../use-case.ts';

/** The org's approval policy (null when none). */
export const getApprovalPolicy = useCase({
  permission: 'deployment:read',
  where: 'org',
  act: async (ctx, _input: undefined): Promise<{ policy: ApprovalPolicy | null }> => ({
    policy: (await orgApprovalPolicy(ctx.services.store.db, ctx.actor.org.id)) ?? null,
  }),
});

/** Sets (or clears, with null) the org's approval policy; audited `org.approval_policy`. */
export const putApprovalPolicy = useCase({
  permission: 'org:manage',
  where: 'org',
  act: (ctx, input: { policy: ApprovalPolicy | null }): Promise<{ policy: ApprovalPolicy | null }> =>
    ctx.write(async (tx) => {
      await putOrgApprovalPolicy(tx.db, ctx.actor.org.id, input.policy ?? undefined);
      await tx.record({
        action: 'org.approval_policy',
        resourceType: 'org',
        resourceId: ctx.actor.org.id,
        resourceName: ctx.actor.org.slug,
        details: { policy: input.policy },
      });
      return { policy: input.policy };
    }),
});

/** The approvals view of an App (GET /apps/{ns}/{name}/approvals). */
export interface ApprovalsView {
  held: boolean;
  operation_id: string;
  revision: string;
  requested_by: string;
  required: number;
  approved_by: Array<{ user_id: string; email: string; at: string }>;
  policy_source: 'app' | 'org' | 'default';
  may_approve: string;
  roles: string[];
  teams: string[];
  users: string[];
  expires_at: string | null;
}

/** The approvals of `app`'s held sync under `policy` (the org's, when the App has none of its own). */
export function approvalsView(app: AppResource, org: ApprovalPolicy | undefined): ApprovalsView {
  const policy = effectivePolicy(app, org);
  const held = heldForApproval(app);
  const own = app.spec.syncPolicy?.approval !== undefined;
  return {
    held: held !== undefined,
    operation_id: held?.id ?? '',
    revision: held?.revision ?? '',
    requested_by: held?.triggeredBy ?? '',
    required: requiredApprovals(policy),
    approved_by: approvalsOf(app).map((a) => ({ user_id: a.user, email: a.email, at: a.at })),
    policy_source: own ? 'app' : org ? 'org' : 'default',
    may_approve: approversText(policy),
    roles: [...(policy.roles ?? [])],
    teams: [...(policy.teams ?? [])],
    users: [...(policy.users ?? [])],
    expires_at: (held && expiresAt(policy, held)) ?? null,
  };
}

/** The approvals of an App's held sync and who may approve it. */
export const appApprovals = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, _ref: AppRef, app): Promise<ApprovalsView> =>
    approvalsView(app, await orgApprovalPolicy(ctx.services.store.db, ctx.actor.org.id)),
});
