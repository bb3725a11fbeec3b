/**
 * An org's delivery policies (docs/operator.md "Approval policies"): the approval policy every App without its own
 * follows. One row per org; the policy is stored as the JSON the API validated.
 */
import type { Kysely } from 'kysely';
import type { ApprovalPolicy } from '../core/app-schema.ts';
import type { DeliveryWindow } from '../core/windows.ts';
import { parseWindows } from './clusters.ts';
import type { Tables } from './database.ts';

/** The org's approval policy, or undefined when it has none (or the stored text is unreadable). */
export async function orgApprovalPolicy(db: Kysely<Tables>, orgId: string): Promise<ApprovalPolicy | undefined> {
  const row = await db.selectFrom('org_policy').select('approval').where('org_id', '=', orgId).executeTakeFirst();
  if (!row?.approval) return undefined;
  try {
    return JSON.parse(row.approval) as ApprovalPolicy;
  } catch {
    return undefined;
  }
}

/** Sets (or, with undefined, clears) the org's approval policy. Run it in the caller's transaction with its audit. */
export async function putOrgApprovalPolicy(
  db: Kysely<Tables>,
  orgId: string,
  policy: ApprovalPolicy | undefined,
): Promise<void> {
  const approval = policy === undefined ? null : JSON.stringify(policy);
  const updated_at = new Date().toISOString();
  await db
    .insertInto('org_policy')
    .values({ org_id: orgId, approval, windows: null, updated_at })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ approval, updated_at }))
    .execute();
}

/** The org's delivery windows ([] when it has none). */
export async function orgWindows(db: Kysely<Tables>, orgId: string): Promise<DeliveryWindow[]> {
  const row = await db.selectFrom('org_policy').select('windows').where('org_id', '=', orgId).executeTakeFirst();
  return parseWindows(row?.windows);
}

/** Sets the org's delivery windows ([] clears them). Run it in the caller's transaction with its audit. */
export async function putOrgWindows(
  db: Kysely<Tables>,
  orgId: string,
  windows: readonly DeliveryWindow[],
): Promise<void> {
  const text = JSON.stringify(windows);
  const updated_at = new Date().toISOString();
  await db
    .insertInto('org_policy')
    .values({ org_id: orgId, approval: null, windows: text, updated_at })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ windows: text, updated_at }))
    .execute();
}
