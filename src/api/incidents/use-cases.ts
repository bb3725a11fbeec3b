/**
 * The incident and remediation use-cases (docs/incidents.md): list and read incidents with their timeline, open one
 * from outside (`POST /incidents`, audited `incident.emit`), acknowledge and resolve by hand, and approve or reject
 * what svc proposes. Approving runs the remediation through the operation's own use-case (src/api/apps: same
 * permission, 409 while another operation is pending) and is audited `remediation.approve` beside the operation's
 * own entry.
 *
 * Incidents and remediations are about Apps, so permissions are checked at the App's deployment scope
 * (`incident:read`, `incident:manage`, `remediation:read`, `remediation:approve`), at org scope for an incident
 * about no App.
 */
import type { AppResource } from '../../core/app-schema.ts';
import { ConflictError, NotFoundError } from '../../core/errors.ts';
import type { EventApp } from '../../core/events.ts';
import { orgNamespace } from '../../core/names.ts';
import { deploymentScopeId, type ScopeRef } from '../../core/permissions.ts';
import { eventAppOf, incidentData, proposeFor } from '../../incidents/record-observation.ts';
import type { Incident, IncidentFilter } from '../../store/incidents.ts';
import { IncidentStore } from '../../store/incidents.ts';
import type { Remediation, RemediationState } from '../../store/remediations.ts';
import { RemediationStore } from '../../store/remediations.ts';
import { inTransaction } from '../../store/transaction.ts';
import { findApp } from '../apps/access.ts';
import { restartApp, rollbackApp, syncApp } from '../apps/operation-use-cases.ts';
import { freezeApp } from '../apps/use-cases.ts';
import { type AuditedTransaction, ORG_SCOPE, type UseCaseContext, useCase } from '../use-case.ts';
import { type TimelineEntry, timelineOf } from './views.ts';

/** The scope an incident's permissions are checked at: its App's deployment, or the org for none. */
function scopeOf(app: EventApp | undefined): ScopeRef {
  return app ? { scope: 'deployment', scopeId: deploymentScopeId(app.cluster, app.namespace) } : ORG_SCOPE;
}

const incidentsOf = (ctx: UseCaseContext) => new IncidentStore(ctx.services.store.db);
const remediationsOf = (ctx: UseCaseContext) => new RemediationStore(ctx.services.store.db);

async function locateIncident(ctx: UseCaseContext, id: string): Promise<Incident> {
  const incident = await incidentsOf(ctx).get(ctx.actor.org.id, id);
  if (!incident) throw new NotFoundError(`incident ${id} not found`);
  return incident;
}

/** A remediation of the org and its incident. */
interface Proposal {
  remediation: Remediation;
  incident: Incident;
}

async function locateRemediation(ctx: UseCaseContext, id: string): Promise<Proposal> {
  const remediation = await remediationsOf(ctx).get(ctx.actor.org.id, id);
  if (!remediation) throw new NotFoundError(`remediation ${id} not found`);
  return { remediation, incident: await locateIncident(ctx, remediation.incidentId) };
}

function incidentAudit(tx: AuditedTransaction, action: string, incident: Incident, details?: Record<string, unknown>) {
  return tx.record({
    action,
    resourceType: 'incident',
    resourceId: incident.id,
    resourceName: incident.app?.name ?? incident.title,
    ...(details ? { details } : {}),
  });
}

/** The org's incidents the caller may read, newest first. */
export const listIncidents = useCase({
  permission: 'incident:read',
  where: 'anywhere',
  act: async (ctx, filter: IncidentFilter): Promise<Incident[]> =>
    (await incidentsOf(ctx).list(ctx.actor.org.id, filter)).filter((i) => ctx.can('incident:read', scopeOf(i.app))),
});

/** One incident with its remediations and timeline. */
export const getIncident = useCase({
  permission: 'incident:read',
  where: { target: (incident: Incident) => scopeOf(incident.app) },
  locate: locateIncident,
  act: (
    ctx,
    id: string,
    incident,
  ): Promise<{ incident: Incident; remediations: Remediation[]; timeline: TimelineEntry[] }> =>
    inTransaction(ctx.services.store.db, async (tx) => {
      const org = ctx.actor.org;
      const remediations = await tx.remediations.ofIncident(org.id, id);
      const events = await tx.events.timeline(
        { id: org.id, slug: org.slug },
        id,
        incident.app,
        incident.openedAt,
        incident.resolvedAt ?? undefined,
      );
      const deliveries = await tx.deliveries.listForEvents(
        org.id,
        events.map((e) => e.id),
      );
      return { incident, remediations, timeline: timelineOf(events, deliveries) };
    }),
});

/** An external incident (POST /incidents). */
export interface EmitInput {
  title: string;
  message?: string | undefined;
  cause?: string | undefined;
  severity?: string | undefined;
  app?: string | undefined;
  details?: Record<string, unknown> | undefined;
}

/** Ends the transaction of a report whose incident is open already (see emitIncident). */
class OpenAlready extends Error {
  readonly incident: Incident;
  constructor(incident: Incident) {
    super('an incident of this App and cause is open');
    this.incident = incident;
  }
}

/** The App an external incident names, if any (404 when the org has none such). */
async function emitTarget(ctx: UseCaseContext, input: EmitInput): Promise<AppResource | undefined> {
  if (input.app === undefined) return undefined;
  const app = await findApp(ctx, input.app);
  if (!app) throw new NotFoundError(`app ${input.app} not found`);
  return app;
}

/**
 * Opens an incident from outside (about the org's App `input.app`, or none). One open incident per App and cause:
 * when one is open, it is answered with `created: false` and nothing changes. A new one about an App gets svc's
 * proposals like a detected one; audited `incident.emit`.
 */
export const emitIncident = useCase({
  permission: 'incident:manage',
  where: { target: (app: AppResource | undefined) => scopeOf(app ? eventAppOf(app) : undefined) },
  locate: emitTarget,
  act: async (ctx, input, app): Promise<{ incident: Incident; created: boolean }> => {
    const eventApp = app ? eventAppOf(app) : undefined;
    const org = { id: ctx.actor.org.id, slug: ctx.actor.org.slug };
    const cause = input.cause ?? 'External';
    const result = await ctx
      .write(async (tx) => {
        const opened = await tx.incidents.open({
          orgId: org.id,
          app: eventApp,
          cause,
          source: 'external',
          severity: input.severity ?? 'warning',
          title: input.title,
          message: input.message ?? '',
          evidence: { details: input.details ?? {} },
          openedBy: ctx.actor.caller.user.id,
        });
        // Nothing is written for a report of an open incident: the transaction ends here, answering that one.
        if (!opened.created) throw new OpenAlready(opened.incident);
        await tx.events.emit({
          org,
          type: 'incident.opened',
          ...(eventApp ? { app: eventApp } : {}),
          incidentId: opened.incident.id,
          data: incidentData(opened.incident),
        });
        if (app) {
          const observed = await tx.observations.getForUpdate(orgNamespace(org.slug), app.metadata.name);
          await proposeFor(tx, org, opened.incident, app, observed?.healthyRevision ?? '', new Date());
        }
        await incidentAudit(tx, 'incident.emit', opened.incident, {
          cause: opened.incident.cause,
          severity: opened.incident.severity,
        });
        return opened;
      })
      .catch(async (err: unknown) => {
        if (err instanceof OpenAlready) return { incident: err.incident, created: false };
        // A twin opened concurrently (by another request or the detector) wins the unique key: answer that one.
        const twin = await incidentsOf(ctx).findOpen(org.id, eventApp, cause);
        if (twin) return { incident: twin, created: false };
        throw err;
      });
    ctx.services.jobs.queued();
    return result;
  },
});

/** Acknowledges an open incident; 409 when resolved or already acknowledged. */
export const acknowledgeIncident = useCase({
  permission: 'incident:manage',
  where: { target: (incident: Incident) => scopeOf(incident.app) },
  locate: locateIncident,
  act: async (ctx, id: string, incident): Promise<Incident> => {
    const org = ctx.actor.org;
    await ctx.write(async (tx) => {
      if (!(await tx.incidents.acknowledge(org.id, id, ctx.actor.caller.user.id))) {
        throw new ConflictError(`incident ${id} is ${incident.state === 'open' ? 'already acknowledged' : 'resolved'}`);
      }
      await tx.events.emit({
        org: { id: org.id, slug: org.slug },
        type: 'incident.acknowledged',
        ...(incident.app ? { app: incident.app } : {}),
        incidentId: id,
        data: { by: ctx.actor.caller.user.id },
      });
      await incidentAudit(tx, 'incident.acknowledge', incident);
    });
    return locateIncident(ctx, id);
  },
});

/**
 * Resolves an open incident by hand, e.g. one an external emitter opened; its open proposals expire. 409 when
 * already resolved. Audited `incident.resolve`.
 */
export const resolveIncident = useCase({
  permission: 'incident:manage',
  where: { target: (incident: Incident) => scopeOf(incident.app) },
  locate: (ctx, input: { id: string; note?: string | undefined }) => locateIncident(ctx, input.id),
  act: async (ctx, input, incident): Promise<Incident> => {
    const org = ctx.actor.org;
    const resolution = input.note?.trim() || 'resolved by hand';
    await ctx.write(async (tx) => {
      if (!(await tx.incidents.resolve(org.id, incident.id, ctx.actor.caller.user.id, resolution))) {
        throw new ConflictError(`incident ${incident.id} is already resolved`);
      }
      await tx.remediations.expireProposed(org.id, incident.id, 'the incident was resolved');
      await tx.events.emit({
        org: { id: org.id, slug: org.slug },
        type: 'incident.resolved',
        ...(incident.app ? { app: incident.app } : {}),
        incidentId: incident.id,
        data: { ...incidentData({ ...incident, state: 'resolved' }), resolution },
      });
      await incidentAudit(tx, 'incident.resolve', incident, { resolution });
    });
    ctx.services.jobs.queued();
    return locateIncident(ctx, incident.id);
  },
});

/** The org's remediations the caller may read, newest first. */
export const listRemediations = useCase({
  permission: 'remediation:read',
  where: 'anywhere',
  act: async (ctx, filter: { state?: RemediationState | undefined; limit: number; offset: number }) => {
    const list = await remediationsOf(ctx).list(ctx.actor.org.id, filter.state, filter.limit, filter.offset);
    const incidents = new Map<string, Incident | undefined>();
    const out: Remediation[] = [];
    for (const r of list) {
      if (!incidents.has(r.incidentId))
        incidents.set(r.incidentId, await incidentsOf(ctx).get(ctx.actor.org.id, r.incidentId));
      const incident = incidents.get(r.incidentId);
      if (incident && ctx.can('remediation:read', scopeOf(incident.app))) out.push(r);
    }
    return out;
  },
});

/** One remediation. */
export const getRemediation = useCase({
  permission: 'remediation:read',
  where: { target: (p: Proposal) => scopeOf(p.incident.app) },
  locate: locateRemediation,
  act: async (_ctx, _id: string, p): Promise<Remediation> => p.remediation,
});

/** Runs the remediation through the App use-cases; answers the operation id (none for unfreeze). */
async function runRemediation(ctx: UseCaseContext, r: Remediation, app: EventApp): Promise<string | undefined> {
  const ref = { namespace: app.namespace, name: app.name };
  switch (r.action) {
    case 'rollback':
      return (await ctx.run(rollbackApp, { ...ref, revision: r.revision ?? '', pauseAutomated: r.pauseAutomated }))
        .operation_id;
    case 'restart':
      return (await ctx.run(restartApp, ref)).operation_id;
    case 'resync':
      return (await ctx.run(syncApp, ref)).operation_id;
    case 'unfreeze':
      await ctx.run(freezeApp, { ...ref, frozen: false });
      return undefined;
  }
}

/** Records an approved remediation: its operation, the other proposals expired, the event and the audit entry. */
async function recordApproval(ctx: UseCaseContext, p: Proposal, app: EventApp, operationId: string | undefined) {
  const { remediation, incident } = p;
  const org = { id: ctx.actor.org.id, slug: ctx.actor.org.slug };
  const id = remediation.id;
  await ctx.write(async (tx) => {
    if (operationId) await tx.remediations.setOperation(org.id, id, operationId);
    await tx.remediations.expireProposed(org.id, incident.id, 'another remediation was approved', new Date(), id);
    const data = { action: remediation.action, revision: remediation.revision, operation_id: operationId ?? null };
    await tx.events.emit({ org, type: 'remediation.approved', app, incidentId: incident.id, remediationId: id, data });
    // Unfreezing is done once the spec says so: there is no operation to wait for.
    if (!operationId && (await tx.remediations.finish(org.id, id, 'Succeeded'))) {
      await tx.events.emit({
        org,
        type: 'remediation.executed',
        app,
        incidentId: incident.id,
        remediationId: id,
        data: { action: remediation.action, phase: 'Succeeded', message: 'spec.freeze cleared' },
      });
    }
    await tx.record({
      action: 'remediation.approve',
      resourceType: 'remediation',
      resourceId: id,
      resourceName: app.name,
      details: { incident_id: incident.id, ...data },
    });
  });
}

/**
 * Approves a proposed remediation (and holds the operation's own permission): runs it as its operation route
 * would, marks the other proposals of the incident expired, and answers the remediation (with its operation's id).
 * 409 when it was decided already, its incident is resolved, or the App has a pending operation (the remediation
 * stays proposed then).
 */
export const approveRemediation = useCase({
  permission: 'remediation:approve',
  where: { target: (p: Proposal) => scopeOf(p.incident.app) },
  locate: locateRemediation,
  act: async (ctx, id: string, p): Promise<Remediation> => {
    const { remediation, incident } = p;
    if (remediation.state !== 'proposed') throw new ConflictError(`remediation ${id} is ${remediation.state}`);
    if (incident.state !== 'open') throw new ConflictError(`incident ${incident.id} is resolved`);
    const app = incident.app;
    if (!app) throw new ConflictError(`incident ${incident.id} is about no App: there is nothing to run`);
    // Claimed first, so two people approving at once cannot both run it; undone when the run fails. The approval's
    // audit entry is written with its outcome (recordApproval).
    const claimed = await remediationsOf(ctx).decide(ctx.actor.org.id, id, {
      state: 'approved',
      userId: ctx.actor.caller.user.id,
    });
    if (!claimed) throw new ConflictError(`remediation ${id} was decided meanwhile`);
    let operationId: string | undefined;
    try {
      operationId = await runRemediation(ctx, remediation, app);
    } catch (err) {
      await remediationsOf(ctx).reopen(ctx.actor.org.id, id);
      throw err;
    }
    await recordApproval(ctx, p, app, operationId);
    ctx.services.jobs.queued();
    return (await remediationsOf(ctx).get(ctx.actor.org.id, id)) as Remediation;
  },
});

/** Rejects a proposed remediation; 409 when decided already. */
export const rejectRemediation = useCase({
  permission: 'remediation:approve',
  where: { target: (p: Proposal) => scopeOf(p.incident.app) },
  locate: (ctx, input: { id: string; reason?: string | undefined }) => locateRemediation(ctx, input.id),
  act: async (ctx, input, { remediation, incident }): Promise<Remediation> => {
    const { id, reason } = input;
    const org = ctx.actor.org;
    await ctx.write(async (tx) => {
      const ok = await tx.remediations.decide(org.id, id, {
        state: 'rejected',
        userId: ctx.actor.caller.user.id,
        ...(reason ? { reason } : {}),
      });
      if (!ok) throw new ConflictError(`remediation ${id} is ${remediation.state}`);
      await tx.events.emit({
        org: { id: org.id, slug: org.slug },
        type: 'remediation.rejected',
        ...(incident.app ? { app: incident.app } : {}),
        incidentId: incident.id,
        remediationId: id,
        data: { action: remediation.action, reason: reason ?? '' },
      });
      await tx.record({
        action: 'remediation.reject',
        resourceType: 'remediation',
        resourceId: id,
        resourceName: incident.app?.name ?? incident.title,
        details: { incident_id: incident.id, action: remediation.action, reason: reason ?? '' },
      });
    });
    ctx.services.jobs.queued();
    return (await remediationsOf(ctx).get(org.id, id)) as Remediation;
  },
});
