/**
 * One observation of one App by the incident detector, written in one transaction (docs/incidents.md): the events
 * since the stored facts, incidents opened for new causes (with their proposed remediations) or resolved once the
 * App recovered, remediations whose operation ended marked executed, and the facts stored for next time. Every
 * event queues its webhook deliveries in the same transaction, so nothing is told twice or lost.
 */
import type { AppResource } from '../core/app-schema.ts';
import {
  causesOf,
  type DetectedCause,
  describeCause,
  edges,
  evidenceOf,
  factsOf,
  healthyRevisionOf,
  recovered,
} from '../core/observation.ts';
import { proposeRemediations } from '../core/remediation-plan.ts';
import type { Incident } from '../store/incidents.ts';
import type { TransactionStores } from '../store/transaction.ts';
import { recordAutoRollback } from './auto-rollback.ts';
import { eventAppOf, incidentData, type OrgRef } from './incident-data.ts';

export { eventAppOf, incidentData, type OrgRef } from './incident-data.ts';

/**
 * Observes App `name` of namespace `appNs` (owned by `org`) as it is now: `app`, or undefined once deleted. Returns
 * how many events were recorded (so the caller can wake the delivery dispatcher).
 */
export async function recordObservation(
  tx: TransactionStores,
  org: OrgRef,
  appNs: string,
  name: string,
  app: AppResource | undefined,
  now = new Date(),
): Promise<number> {
  const stored = await tx.observations.getForUpdate(appNs, name);
  if (!app) return forgetDeleted(tx, org, appNs, name, stored !== undefined, now);
  const same = stored && stored.uid === (app.metadata.uid ?? '') ? stored : undefined;
  const eventApp = eventAppOf(app);
  let count = 0;
  for (const e of edges(same?.facts, app)) {
    await tx.events.emit({ org, type: e.type, app: eventApp, data: e.data }, now);
    count++;
  }
  // An automatic rollback is recorded as an approved remediation first, so an operation that has ended already
  // marks it executed in this same observation.
  count += await recordAutoRollback(tx, org, app, now);
  count += await finishRemediations(tx, org, app, now);
  const healthyRevision = healthyRevisionOf(app) ?? same?.healthyRevision ?? '';
  count += await updateIncidents(tx, org, name, app, healthyRevision, now);
  await tx.observations.put(
    { appNs, appName: name, orgId: org.id, uid: app.metadata.uid ?? '', facts: factsOf(app), healthyRevision },
    now,
  );
  return count;
}

/** An App that is gone: its detected incidents resolve and its observation is dropped; answers the events recorded. */
async function forgetDeleted(
  tx: TransactionStores,
  org: OrgRef,
  appNs: string,
  name: string,
  observed: boolean,
  now: Date,
): Promise<number> {
  let count = 0;
  for (const incident of await tx.incidents.openDetected(org.id, name)) {
    count += await resolve(tx, org, incident, 'the App was deleted', now);
  }
  if (observed) await tx.observations.remove(appNs, name);
  return count;
}

/** Resolves the App's detected incidents once it recovered, else opens one per cause not open yet. */
async function updateIncidents(
  tx: TransactionStores,
  org: OrgRef,
  name: string,
  app: AppResource,
  healthyRevision: string,
  now: Date,
): Promise<number> {
  const open = await tx.incidents.openDetected(org.id, name);
  let count = 0;
  if (recovered(app)) {
    for (const incident of open)
      count += await resolve(tx, org, incident, 'the App is Healthy and its sync succeeds', now);
    return count;
  }
  for (const cause of causesOf(app)) {
    if (open.some((i) => i.cause === cause)) continue;
    count += await openIncident(tx, org, app, cause, healthyRevision, now);
  }
  return count;
}

/** Opens an incident of `cause` with its proposals; returns the events recorded (none when one was open already). */
async function openIncident(
  tx: TransactionStores,
  org: OrgRef,
  app: AppResource,
  cause: DetectedCause,
  healthyRevision: string,
  now: Date,
): Promise<number> {
  const eventApp = eventAppOf(app);
  const { title, message } = describeCause(app, cause);
  const evidence = { ...evidenceOf(app), healthy_revision: healthyRevision };
  const { incident, created } = await tx.incidents.open(
    {
      orgId: org.id,
      app: eventApp,
      cause,
      source: 'detector',
      severity: cause === 'Degraded' ? 'critical' : 'warning',
      title,
      message,
      evidence,
      openedBy: '',
    },
    now,
  );
  if (!created) return 0;
  await tx.events.emit(
    { org, type: 'incident.opened', app: eventApp, incidentId: incident.id, data: incidentData(incident) },
    now,
  );
  await tx.audit.record(
    {
      orgId: org.id,
      userId: '',
      action: 'incident.open',
      resourceType: 'incident',
      resourceId: incident.id,
      resourceName: app.metadata.name,
      details: { cause, title },
    },
    now,
  );
  let count = 1;
  count += await proposeFor(tx, org, incident, app, healthyRevision, now);
  return count;
}

/** Stores and announces the remediations svc proposes for `incident`; returns the events recorded. */
export async function proposeFor(
  tx: TransactionStores,
  org: OrgRef,
  incident: Incident,
  app: AppResource,
  healthyRevision: string,
  now: Date,
): Promise<number> {
  let count = 0;
  for (const p of proposeRemediations(app, incident.cause, healthyRevision)) {
    const remediation = await tx.remediations.propose(
      {
        orgId: org.id,
        incidentId: incident.id,
        action: p.action,
        ...(p.revision ? { revision: p.revision } : {}),
        pauseAutomated: p.pauseAutomated,
        evidence: {
          why: p.why,
          applied_revision: app.status?.revision ?? '',
          healthy_revision: healthyRevision,
          health: app.status?.healthStatus ?? 'Unknown',
        },
      },
      now,
    );
    await tx.events.emit(
      {
        org,
        type: 'remediation.proposed',
        app: eventAppOf(app),
        incidentId: incident.id,
        remediationId: remediation.id,
        data: { action: p.action, revision: p.revision ?? null, pause_automated: p.pauseAutomated, why: p.why },
      },
      now,
    );
    count++;
  }
  return count;
}

/** Resolves an open incident (by svc) and expires its open proposals; returns the events recorded. */
async function resolve(
  tx: TransactionStores,
  org: OrgRef,
  incident: Incident,
  why: string,
  now: Date,
): Promise<number> {
  if (!(await tx.incidents.resolve(org.id, incident.id, '', why, now))) return 0;
  await tx.remediations.expireProposed(org.id, incident.id, 'the incident was resolved', now);
  await tx.events.emit(
    {
      org,
      type: 'incident.resolved',
      ...(incident.app ? { app: incident.app } : {}),
      incidentId: incident.id,
      data: { ...incidentData({ ...incident, state: 'resolved' }), resolution: why },
    },
    now,
  );
  await tx.audit.record(
    {
      orgId: org.id,
      userId: '',
      action: 'incident.resolve',
      resourceType: 'incident',
      resourceId: incident.id,
      resourceName: incident.app?.name ?? incident.title,
      details: { cause: incident.cause, resolution: why },
    },
    now,
  );
  return 1;
}

/**
 * Marks executed the approved remediations whose operation the App records as ended (Succeeded or Failed);
 * returns the events recorded.
 */
async function finishRemediations(tx: TransactionStores, org: OrgRef, app: AppResource, now: Date): Promise<number> {
  const op = app.status?.operationState;
  if (!op?.id || (op.phase !== 'Succeeded' && op.phase !== 'Failed')) return 0;
  let count = 0;
  for (const r of await tx.remediations.approvedWithOperation(org.id, op.id)) {
    if (!(await tx.remediations.finish(org.id, r.id, op.phase, now))) continue;
    await tx.events.emit(
      {
        org,
        type: 'remediation.executed',
        app: eventAppOf(app),
        incidentId: r.incidentId,
        remediationId: r.id,
        data: { action: r.action, operation_id: op.id, phase: op.phase, message: op.message ?? '' },
      },
      now,
    );
    count++;
  }
  return count;
}
