/**
 * Approval routes (docs/operator.md "Approval policies"): GET and PUT /approval-policy (the org's policy) and
 * GET /apps/{ns}/{name}/approvals (the approvals of the App's held sync and who may still approve it).
 */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../approval-policy/contract.ts';
import * as approvals from '../approval-policy/use-cases.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the approval routes. */
export async function approvalRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/approval-policy', { schema: contract.getApprovalPolicyRoute }, async (request) =>
    run(services, approvals.getApprovalPolicy, principalOf(request), undefined),
  );

  api.put('/approval-policy', { schema: contract.putApprovalPolicyRoute }, async (request) =>
    run(services, approvals.putApprovalPolicy, principalOf(request), request.body),
  );

  api.get('/apps/:namespace/:name/approvals', { schema: contract.appApprovalsRoute }, async (request) =>
    run(services, approvals.appApprovals, principalOf(request), request.params),
  );
}
