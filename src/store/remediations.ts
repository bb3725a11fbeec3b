/**
 * Remediations (docs/incidents.md "Remediations"): what svc proposes for an incident, and what became of it:
 * proposed → approved (its operation written) → executed (the operation ended; `result` says how), or rejected, or
 * expired (the incident resolved, or another remediation of it was approved, first).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { RemediationAction } from '../core/remediation-plan.ts';
import { orderedStamp } from './clock.ts';
import type { RemediationTable, Tables } from './database.ts';

export type RemediationState = 'proposed' | 'approved' | 'rejected' | 'executed' | 'expired';

export interface Remediation {
  id: string;
  orgId: string;
  incidentId: string;
  action: RemediationAction;
  revision: string | null;
  pauseAutomated: boolean;
  evidence: Record<string, unknown>;
  state: RemediationState;
  operationId: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
  /** Succeeded or Failed once executed (the operation's phase), or why it expired. */
  result: string | null;
  finishedAt: string | null;
  createdAt: string;
}

function toRemediation(r: RemediationTable): Remediation {
  return {
    id: r.id,
    orgId: r.org_id,
    incidentId: r.incident_id,
    action: r.action as RemediationAction,
    revision: r.revision,
    pauseAutomated: Number(r.pause_automated) === 1,
    evidence: JSON.parse(r.evidence) as Record<string, unknown>,
    state: r.state as RemediationState,
    operationId: r.operation_id,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at,
    reason: r.reason,
    result: r.result,
    finishedAt: r.finished_at,
    createdAt: r.created_at,
  };
}

export class RemediationStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Stores a proposal. */
  async propose(
    p: {
      orgId: string;
      incidentId: string;
      action: RemediationAction;
      revision?: string;
      pauseAutomated: boolean;
      evidence: Record<string, unknown>;
    },
    now = new Date(),
  ): Promise<Remediation> {
    const row: RemediationTable = {
      id: `rem_${randomUUID().replaceAll('-', '')}`,
      org_id: p.orgId,
      incident_id: p.incidentId,
      action: p.action,
      revision: p.revision ?? null,
      pause_automated: p.pauseAutomated ? 1 : 0,
      evidence: JSON.stringify(p.evidence),
      state: 'proposed',
      operation_id: null,
      decided_by: null,
      decided_at: null,
      reason: null,
      result: null,
      finished_at: null,
      created_at: orderedStamp(now),
    };
    await this.#db.insertInto('remediation').values(row).execute();
    return toRemediation(row);
  }

  /** One remediation of the org, or undefined. */
  async get(orgId: string, id: string): Promise<Remediation | undefined> {
    const row = await this.#db
      .selectFrom('remediation')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRemediation(row) : undefined;
  }

  /** The remediations of one incident, oldest first. */
  async ofIncident(orgId: string, incidentId: string): Promise<Remediation[]> {
    const rows = await this.#db
      .selectFrom('remediation')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('incident_id', '=', incidentId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toRemediation);
  }

  /** The org's remediations, newest first, optionally in one state. */
  async list(orgId: string, state: RemediationState | undefined, limit: number, offset: number) {
    const rows = await this.#db
      .selectFrom('remediation')
      .selectAll()
      .where('org_id', '=', orgId)
      .$if(state !== undefined, (q) => q.where('state', '=', state as string))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toRemediation);
  }

  /**
   * Moves a proposed remediation to `state` (approved or rejected) by `userId`; false when it is no longer proposed
   * (someone decided first).
   */
  async decide(
    orgId: string,
    id: string,
    d: { state: 'approved' | 'rejected'; userId: string; reason?: string },
    now = new Date(),
  ): Promise<boolean> {
    const r = await this.#db
      .updateTable('remediation')
      .set({
        state: d.state,
        decided_by: d.userId,
        decided_at: now.toISOString(),
        reason: d.reason ?? null,
      })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('state', '=', 'proposed')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Records the operation an approved remediation wrote. */
  async setOperation(orgId: string, id: string, operationId: string): Promise<void> {
    await this.#db
      .updateTable('remediation')
      .set({ operation_id: operationId })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .execute();
  }

  /** Returns an approved remediation whose operation could not be written to proposed. */
  async reopen(orgId: string, id: string): Promise<void> {
    await this.#db
      .updateTable('remediation')
      .set({ state: 'proposed', decided_by: null, decided_at: null, operation_id: null })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('state', '=', 'approved')
      .execute();
  }

  /** Marks an approved remediation executed with `result` (the operation's phase); false when it was not approved. */
  async finish(orgId: string, id: string, result: string, now = new Date()): Promise<boolean> {
    const r = await this.#db
      .updateTable('remediation')
      .set({ state: 'executed', result, finished_at: now.toISOString() })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('state', '=', 'approved')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Expires the incident's proposals still open (`why`), but `except`; returns the ids expired. */
  async expireProposed(orgId: string, incidentId: string, why: string, now = new Date(), except?: string) {
    const open = (await this.ofIncident(orgId, incidentId))
      .filter((r) => r.state === 'proposed' && r.id !== except)
      .map((r) => r.id);
    if (open.length === 0) return [];
    await this.#db
      .updateTable('remediation')
      .set({ state: 'expired', result: why, finished_at: now.toISOString() })
      .where('org_id', '=', orgId)
      .where('id', 'in', open)
      .where('state', '=', 'proposed')
      .execute();
    return open;
  }

  /** A remediation of the org whose operation is `operationId`, in any state, if there is one. */
  async withOperation(orgId: string, operationId: string): Promise<Remediation | undefined> {
    const row = await this.#db
      .selectFrom('remediation')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('operation_id', '=', operationId)
      .executeTakeFirst();
    return row ? toRemediation(row) : undefined;
  }

  /** Approved remediations of the org whose operation is `operationId` (to mark them executed). */
  async approvedWithOperation(orgId: string, operationId: string): Promise<Remediation[]> {
    const rows = await this.#db
      .selectFrom('remediation')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('state', '=', 'approved')
      .where('operation_id', '=', operationId)
      .execute();
    return rows.map(toRemediation);
  }
}
