/**
 * Approving a sync held by `requiresApproval` under the approval policy in force (src/core/approvals.ts): the App's
 * own (spec.syncPolicy.approval), else the org's (GET/PUT /approval-policy), else one approval by anyone with
 * deployment:sync. The requester is refused (403), as is anyone the policy does not name (403); each approval is
 * recorded on the App (APPROVALS_ANNOTATION) and audited `app.approve`; the last one needed requests the Approve
 * operation that releases the held sync.
 */
import type { AppResource, ApprovalPolicy, OperationState } from '../../core/app-schema.ts';
import {
  APPROVALS_ANNOTATION,
  type Approver,
  approvalsOf,
  approversText,
  effectivePolicy,
  expiresAt,
  mayApprove,
  requiredApprovals,
} from '../../core/approvals.ts';
import { ConflictError, ForbiddenError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { orgApprovalPolicy } from '../../store/org-policies.ts';
import { TeamStore } from '../../store/teams.ts';
import type { UseCaseContext } from '../use-case.ts';
import { auditApp, kubeOf, requestOperation } from './access.ts';

/** The approval policy in force for `app`. */
export async function policyFor(ctx: UseCaseContext, app: AppResource): Promise<ApprovalPolicy> {
  return effectivePolicy(app, await orgApprovalPolicy(ctx.services.store.db, ctx.actor.org.id));
}

async function approverOf(ctx: UseCaseContext): Promise<Approver> {
  const { caller, org } = ctx.actor;
  const teams = await new TeamStore(ctx.services.store.db).teamNamesOf(org.id, caller.user.id);
  return { userId: caller.user.id, email: caller.user.email, role: caller.role, teams };
}

/** Refuses an approval the policy does not allow: 403 for the requester or a non-approver, 409 past the expiry. */
async function checkApprover(ctx: UseCaseContext, policy: ApprovalPolicy, held: OperationState): Promise<void> {
  const user = ctx.actor.caller.user;
  if (held.triggeredBy === user.id) {
    throw new ForbiddenError('you requested this sync: the requester may not approve it, another person must');
  }
  const expires = expiresAt(policy, held);
  if (expires !== undefined && Date.parse(expires) <= Date.now()) {
    throw new ConflictError(
      `the held sync expired at ${expires} (approval expiry ${policy.expiry}); request a new sync`,
    );
  }
  if (!mayApprove(policy, await approverOf(ctx))) {
    throw new ForbiddenError(`the approval policy lets only ${approversText(policy)} approve this app`);
  }
}

/** What an approval answers: the operation it released (or the held one while more approvals are needed). */
export interface ApprovalAnswer {
  message: string;
  name: string;
  revision: string;
  operation_id: string;
}

/** Records the caller's approval of the sync `held` on `app`; releases it once enough distinct people approved. */
export async function approveHeld(
  ctx: UseCaseContext,
  app: AppResource,
  held: OperationState,
): Promise<ApprovalAnswer> {
  const policy = await policyFor(ctx, app);
  await checkApprover(ctx, policy, held);
  const user = ctx.actor.caller.user;
  const earlier = approvalsOf(app);
  if (earlier.some((a) => a.user === user.id)) throw new ConflictError('you already approved this sync');
  const by = [...earlier, { user: user.id, email: user.email, at: new Date().toISOString() }];
  const annotation = JSON.stringify({ operation: held.id ?? '', by });
  const patch = { metadata: { annotations: { [APPROVALS_ANNOTATION]: annotation } } };
  const { name } = app.metadata;
  const patched = await kubeOf(ctx.services).mergePatch(
    orgNamespace(ctx.actor.org.slug),
    name,
    patch,
    app.metadata.resourceVersion,
  );
  const required = requiredApprovals(policy);
  const revision = held.revision ?? '';
  const counts = { approvals: by.length, required, approved_by: by.map((a) => a.email) };
  if (by.length < required) {
    await auditApp(ctx, 'app.approve', app, { held_operation_id: held.id ?? '', revision, released: false, ...counts });
    const message = `Approval recorded (${by.length} of ${required})`;
    return { message, name, revision, operation_id: held.id ?? '' };
  }
  const id = await requestOperation(ctx, patched, { kind: 'Approve' });
  await auditApp(ctx, 'app.approve', app, { operation_id: id, revision, released: true, ...counts });
  return { message: 'Approve requested', name, revision, operation_id: id };
}
