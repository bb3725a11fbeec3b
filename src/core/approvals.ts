/**
 * Approvals of a sync held by `requiresApproval` (docs/operator.md "Approval policies"). The API records each
 * approval on the App itself (annotation APPROVALS_ANNOTATION, keyed by the held operation's id, so approvals of an
 * earlier hold never count for a new one); the held sync is released once the policy's count of distinct approvers
 * is reached. Who may approve is the App's policy (spec.syncPolicy.approval), else the org's, else anyone with
 * deployment:sync; never the person who requested the sync. Pure.
 */
import type { AppResource, ApprovalPolicy, OperationState } from './app-schema.ts';
import { APPROVAL_MESSAGE } from './app-state.ts';
import { parseDuration } from './duration.ts';

/** The App annotation that records the approvals of its held sync (JSON, see `ApprovalRecord`). */
export const APPROVALS_ANNOTATION = 'cd.svc.space/approvals';

/** One approval. */
export interface Approval {
  /** The approver's user id. */
  user: string;
  email: string;
  /** When (ISO 8601). */
  at: string;
}

/** What the annotation holds: the held operation the approvals are for, and the approvals. */
export interface ApprovalRecord {
  operation: string;
  by: Approval[];
}

/** The sync held for approval right now (its operationState), or undefined. */
export function heldForApproval(app: AppResource): OperationState | undefined {
  const s = app.status?.operationState;
  if (s?.phase !== 'Held' || s.message !== APPROVAL_MESSAGE) return undefined;
  // A newer request written over the hold (e.g. an Approve) is not a hold any more.
  if (app.spec.operation && app.spec.operation.id !== s.id) return undefined;
  return s;
}

/** The approvals recorded for the sync held now (none when nothing is held or they were for another hold). */
export function approvalsOf(app: AppResource): Approval[] {
  const held = heldForApproval(app);
  const text = app.metadata.annotations?.[APPROVALS_ANNOTATION];
  if (!held || !text) return [];
  try {
    const record = JSON.parse(text) as Partial<ApprovalRecord>;
    if (record.operation !== held.id || !Array.isArray(record.by)) return [];
    return record.by.filter((a) => typeof a?.user === 'string' && typeof a.email === 'string');
  } catch {
    return [];
  }
}

/** The policy in force: the App's own, else the org's, else the default (one approval by anyone). */
export function effectivePolicy(app: AppResource, org: ApprovalPolicy | undefined): ApprovalPolicy {
  return app.spec.syncPolicy?.approval ?? org ?? {};
}

/** Distinct approvals the policy needs. */
export function requiredApprovals(policy: ApprovalPolicy): number {
  return policy.count ?? 1;
}

/** When the held sync `held` expires under `policy` (ISO 8601), or undefined without an expiry. */
export function expiresAt(policy: ApprovalPolicy, held: OperationState): string | undefined {
  const ms = policy.expiry ? parseDuration(policy.expiry) : undefined;
  const since = held.initiatedAt ? Date.parse(held.initiatedAt) : Number.NaN;
  if (ms === undefined || Number.isNaN(since)) return undefined;
  return new Date(since + ms).toISOString();
}

/** The operationState.reason of a held sync dropped at its approval expiry. */
export const APPROVAL_EXPIRED_REASON = 'ApprovalExpired';

/**
 * The sync of `app` held for approval whose App policy's expiry (spec.syncPolicy.approval.expiry) has passed at
 * `now` (ms), with when it expired; undefined when nothing is held, there is no expiry, or it has not passed. The
 * operator drops such a sync. Only the App's own policy: the org's lives in the server's database, which the
 * operator does not read (the API refuses an approval past either expiry).
 */
export function expiredApproval(app: AppResource, now: number): { held: OperationState; at: string } | undefined {
  const held = heldForApproval(app);
  const policy = app.spec.syncPolicy?.approval;
  if (!held || !policy) return undefined;
  const at = expiresAt(policy, held);
  if (at === undefined || Date.parse(at) > now) return undefined;
  return { held, at };
}

/** Ms until the sync of `app` held for approval expires under its App policy, or undefined without one. */
export function msUntilApprovalExpiry(app: AppResource, now: number): number | undefined {
  const held = heldForApproval(app);
  const policy = app.spec.syncPolicy?.approval;
  const at = held && policy ? expiresAt(policy, held) : undefined;
  return at === undefined ? undefined : Math.max(0, Date.parse(at) - now);
}

/** Who is asking to approve, as a policy matches it. */
export interface Approver {
  userId: string;
  email: string;
  /** The org role (Owner, Admin, Contributor, Viewer). */
  role: string | undefined;
  /** Names of the teams the user belongs to. */
  teams: readonly string[];
}

/** Whether the policy names anyone at all (an empty policy lets anyone with deployment:sync approve). */
export function restrictsApprovers(policy: ApprovalPolicy): boolean {
  return (policy.roles?.length ?? 0) + (policy.teams?.length ?? 0) + (policy.users?.length ?? 0) > 0;
}

/** Whether `who` is one of the policy's approvers (by role, team, user id or email). */
export function mayApprove(policy: ApprovalPolicy, who: Approver): boolean {
  if (!restrictsApprovers(policy)) return true;
  const email = who.email.toLowerCase();
  return (
    (who.role !== undefined && (policy.roles ?? []).some((r) => r === who.role)) ||
    (policy.teams ?? []).some((t) => who.teams.includes(t)) ||
    (policy.users ?? []).some((u) => u === who.userId || u.toLowerCase() === email)
  );
}

/** A sentence naming who may approve under `policy`. */
export function approversText(policy: ApprovalPolicy): string {
  if (!restrictsApprovers(policy)) return 'anyone with deployment:sync';
  const parts = [
    policy.roles?.length ? `roles ${policy.roles.join(', ')}` : '',
    policy.teams?.length ? `teams ${policy.teams.join(', ')}` : '',
    policy.users?.length ? `users ${policy.users.join(', ')}` : '',
  ];
  return parts.filter((p) => p !== '').join('; ');
}
