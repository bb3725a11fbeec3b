/**
 * An automatic rollback, as the incident detector records it (docs/incidents.md "Automatic rollback"): the operator
 * rolled a Degraded App back on its own (src/core/auto-rollback.ts) and left the record on the App; the detector, in
 * the observation's transaction, records it once (keyed by its operation id) as a remediation of the App's Degraded
 * incident approved by svc (it is marked executed when the operation ends, as an approved one is), expires the other
 * proposals, announces `remediation.approved` and audits `app.rollback` as a system action (user_id empty).
 */
import type { AppResource } from '../core/app-schema.ts';
import { heldAtOf } from '../core/app-state.ts';
import { AUTO_ROLLBACK_ACTOR, type AutoRollbackRecord, autoRollbackOf } from '../core/auto-rollback.ts';
import { describeCause, evidenceOf } from '../core/observation.ts';
import type { Incident } from '../store/incidents.ts';
import type { TransactionStores } from '../store/transaction.ts';
import { eventAppOf, incidentData, type OrgRef } from './incident-data.ts';

/**
 * Records the App's automatic rollback if it is not recorded yet; answers the events recorded. Only while its
 * operation is the App's latest or its hold stands, so an old record met by a new database is not told as new.
 */
export async function recordAutoRollback(
  tx: TransactionStores,
  org: OrgRef,
  app: AppResource,
  now: Date,
): Promise<number> {
  const r = autoRollbackOf(app);
  if (!r || !current(app, r)) return 0;
  if (await tx.remediations.withOperation(org.id, r.operationId)) return 0;
  const { incident, events } = await degradedIncident(tx, org, app, r, now);
  const why = `svc rolled back automatically: Degraded for ${r.after} at revision ${r.from}`;
  const remediation = await tx.remediations.propose(
    {
      orgId: org.id,
      incidentId: incident.id,
      action: 'rollback',
      revision: r.to,
      pauseAutomated: false,
      evidence: { why, automatic: true, applied_revision: r.from, healthy_revision: r.to, held: true },
    },
    now,
  );
  await tx.remediations.decide(
    org.id,
    remediation.id,
    { state: 'approved', userId: AUTO_ROLLBACK_ACTOR, reason: why },
    now,
  );
  await tx.remediations.setOperation(org.id, remediation.id, r.operationId);
  await tx.remediations.expireProposed(
    org.id,
    incident.id,
    'svc rolled the App back automatically',
    now,
    remediation.id,
  );
  const data = { action: 'rollback', revision: r.to, operation_id: r.operationId, automatic: true };
  await tx.events.emit(
    {
      org,
      type: 'remediation.approved',
      app: eventAppOf(app),
      incidentId: incident.id,
      remediationId: remediation.id,
      data,
    },
    now,
  );
  await tx.audit.record(
    {
      orgId: org.id,
      userId: '',
      action: 'app.rollback',
      resourceType: 'app',
      ...(app.metadata.uid ? { resourceId: app.metadata.uid } : {}),
      resourceName: app.metadata.name,
      details: {
        namespace: app.spec.destination.namespace,
        cluster: app.spec.destination.cluster ?? '',
        operation_id: r.operationId,
        revision: r.to,
        from: r.from,
        hold: true,
        reason: `Degraded for ${r.after} at revision ${r.from}`,
        automatic: true,
        by: AUTO_ROLLBACK_ACTOR,
        incident_id: incident.id,
        remediation_id: remediation.id,
      },
    },
    now,
  );
  return events + 1;
}

/** Whether the record is still the App's story: its Rollback is the latest operation, or its hold stands. */
function current(app: AppResource, r: AutoRollbackRecord): boolean {
  if (app.spec.operation?.id === r.operationId || app.status?.operationState?.id === r.operationId) return true;
  const held = heldAtOf(app);
  return held?.by === AUTO_ROLLBACK_ACTOR && held.revision === r.to;
}

/**
 * The App's open Degraded incident; one is opened when none is (the detector did not see it Degraded: no server
 * ran meanwhile), so the rollback is recorded somewhere a person looks.
 */
async function degradedIncident(
  tx: TransactionStores,
  org: OrgRef,
  app: AppResource,
  r: AutoRollbackRecord,
  now: Date,
): Promise<{ incident: Incident; events: number }> {
  const open = (await tx.incidents.openDetected(org.id, app.metadata.name)).find((i) => i.cause === 'Degraded');
  if (open) return { incident: open, events: 0 };
  const { title } = describeCause(app, 'Degraded');
  const { incident, created } = await tx.incidents.open(
    {
      orgId: org.id,
      app: eventAppOf(app),
      cause: 'Degraded',
      source: 'detector',
      severity: 'critical',
      title,
      message: `Degraded for ${r.after} at revision ${r.from}`,
      evidence: { ...evidenceOf(app), healthy_revision: r.to, degraded_revision: r.from },
      openedBy: '',
    },
    now,
  );
  if (!created) return { incident, events: 0 };
  await tx.events.emit(
    { org, type: 'incident.opened', app: eventAppOf(app), incidentId: incident.id, data: incidentData(incident) },
    now,
  );
  return { incident, events: 1 };
}
