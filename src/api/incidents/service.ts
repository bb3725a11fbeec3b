/**
 * The incident and remediation use-cases (docs/incidents.md): list and read incidents with their timeline, open one
 * from outside (`POST /incidents`, audited `incident.emit`), acknowledge and resolve by hand, and approve or reject
 * what svc proposes. Approving runs the remediation as the operation route would (src/api/apps: same permission,
 * 409 while another operation is pending) and is audited `remediation.approve` beside the operation's own entry.
 *
 * Incidents and remediations are about Apps, so permissions are checked at the App's deployment scope
 * (`incident:read`, `incident:manage`, `remediation:read`, `remediation:approve`), at org scope for an incident
 * about no App.
 */
import { canAnywhere, canI } from '../../auth/rbac.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../core/errors.ts';
import type { EventApp } from '../../core/events.ts';
import { orgNamespace } from '../../core/names.ts';
import { deploymentScopeId } from '../../core/permissions.ts';
import { eventAppOf, incidentData, proposeFor } from '../../incidents/record-observation.ts';
import type { Incident, IncidentState } from '../../store/incidents.ts';
import { IncidentStore } from '../../store/incidents.ts';
import type { Remediation, RemediationState } from '../../store/remediations.ts';
import { RemediationStore } from '../../store/remediations.ts';
import { inTransaction, type TransactionStores } from '../../store/transaction.ts';
import type { Actor } from '../actor.ts';
import { AppAccess } from '../apps/access.ts';
import { AppOperations } from '../apps/operation-service.ts';
import { AppService } from '../apps/service.ts';
import type { ApiServices } from '../services.ts';
import { type TimelineEntry, timelineOf } from './views.ts';

/** The scope an incident's permissions are checked at. */
function scopeOf(app: EventApp | undefined): [string, string] {
  return app ? ['deployment', deploymentScopeId(app.cluster, app.namespace)] : ['org', ''];
}

/** An external incident (POST /incidents). */
export interface EmitInput {
  title: string;
  message?: string;
  cause?: string;
  severity?: string;
  app?: string;
  details?: Record<string, unknown>;
}

export class IncidentService {
  readonly #services: ApiServices;
  readonly #incidents: IncidentStore;
  readonly #remediations: RemediationStore;
  readonly #access: AppAccess;
  readonly #operations: AppOperations;
  readonly #apps: AppService;

  constructor(services: ApiServices) {
    this.#services = services;
    this.#incidents = new IncidentStore(services.store.db);
    this.#remediations = new RemediationStore(services.store.db);
    this.#access = new AppAccess(services);
    this.#operations = new AppOperations(services);
    this.#apps = new AppService(services);
  }

  /** Throws ForbiddenError unless the caller holds `permission` where the incident's App lives. */
  #require(actor: Actor, permission: string, app: EventApp | undefined): void {
    const [scope, scopeId] = scopeOf(app);
    if (!canI(actor.caller, permission, scope, scopeId)) {
      const where = app ? `on deployment "${scopeId}"` : 'in this organization';
      throw new ForbiddenError(`missing permission ${permission} ${where}`);
    }
  }

  /** The org's incidents the caller may read, newest first. 403 for a caller who may read none. */
  async list(
    actor: Actor,
    filter: { state?: IncidentState; app?: string; cause?: string; limit: number; offset: number },
  ): Promise<Incident[]> {
    if (!canAnywhere(actor.caller, 'incident:read')) throw new ForbiddenError('missing permission incident:read');
    const all = await this.#incidents.list(actor.org.id, filter);
    return all.filter((i) => canI(actor.caller, 'incident:read', ...scopeOf(i.app)));
  }

  /** One incident with its remediations and timeline; 404 outside the org, 403 without `incident:read` there. */
  async get(
    actor: Actor,
    id: string,
  ): Promise<{ incident: Incident; remediations: Remediation[]; timeline: TimelineEntry[] }> {
    const incident = await this.#find(actor, id);
    this.#require(actor, 'incident:read', incident.app);
    return inTransaction(this.#services.store.db, async (tx) => {
      const remediations = await tx.remediations.ofIncident(actor.org.id, id);
      const events = await tx.events.timeline(
        { id: actor.org.id, slug: actor.org.slug },
        id,
        incident.app,
        incident.openedAt,
        incident.resolvedAt ?? undefined,
      );
      const deliveries = await tx.deliveries.listForEvents(
        actor.org.id,
        events.map((e) => e.id),
      );
      return { incident, remediations, timeline: timelineOf(events, deliveries) };
    });
  }

  /**
   * Opens an incident from outside (`incident:manage`; about the org's App `input.app`, or none). One open incident
   * per App and cause: when one is open, it is answered with `created: false` and nothing changes. A new one about
   * an App gets svc's proposals like a detected one; audited `incident.emit`.
   */
  async emit(actor: Actor, input: EmitInput): Promise<{ incident: Incident; created: boolean }> {
    const app = input.app === undefined ? undefined : await this.#access.find(actor, input.app);
    if (input.app !== undefined && !app) throw new NotFoundError(`app ${input.app} not found`);
    const eventApp = app ? eventAppOf(app) : undefined;
    this.#require(actor, 'incident:manage', eventApp);
    const org = { id: actor.org.id, slug: actor.org.slug };
    const cause = input.cause ?? 'External';
    const result = await inTransaction(this.#services.store.db, async (tx) => {
      const opened = await tx.incidents.open({
        orgId: org.id,
        app: eventApp,
        cause,
        source: 'external',
        severity: input.severity ?? 'warning',
        title: input.title,
        message: input.message ?? '',
        evidence: { details: input.details ?? {} },
        openedBy: actor.caller.user.id,
      });
      if (!opened.created) return opened;
      await tx.events.emit({
        org,
        type: 'incident.opened',
        ...(eventApp ? { app: eventApp } : {}),
        incidentId: opened.incident.id,
        data: incidentData(opened.incident),
      });
      if (app) {
        const observed = await tx.observations.getForUpdate(orgNamespace(actor.org.slug), app.metadata.name);
        await proposeFor(tx, org, opened.incident, app, observed?.healthyRevision ?? '', new Date());
      }
      await this.#audit(tx, actor, 'incident.emit', opened.incident, {
        cause: opened.incident.cause,
        severity: opened.incident.severity,
      });
      return opened;
    }).catch(async (err: unknown) => {
      // A twin opened concurrently (by another request or the detector) wins the unique key: answer that one.
      const twin = await this.#incidents.findOpen(org.id, eventApp, cause);
      if (twin) return { incident: twin, created: false };
      throw err;
    });
    this.#services.jobs.queued();
    return result;
  }

  /** Acknowledges an open incident (`incident:manage`); 409 when resolved or already acknowledged. */
  async acknowledge(actor: Actor, id: string): Promise<Incident> {
    const incident = await this.#find(actor, id);
    this.#require(actor, 'incident:manage', incident.app);
    await inTransaction(this.#services.store.db, async (tx) => {
      if (!(await tx.incidents.acknowledge(actor.org.id, id, actor.caller.user.id))) {
        throw new ConflictError(`incident ${id} is ${incident.state === 'open' ? 'already acknowledged' : 'resolved'}`);
      }
      await tx.events.emit({
        org: { id: actor.org.id, slug: actor.org.slug },
        type: 'incident.acknowledged',
        ...(incident.app ? { app: incident.app } : {}),
        incidentId: id,
        data: { by: actor.caller.user.id },
      });
      await this.#audit(tx, actor, 'incident.acknowledge', incident);
    });
    return this.#find(actor, id);
  }

  /**
   * Resolves an open incident by hand (`incident:manage`), e.g. one an external emitter opened; its open proposals
   * expire. 409 when already resolved. Audited `incident.resolve`.
   */
  async resolve(actor: Actor, id: string, note: string | undefined): Promise<Incident> {
    const incident = await this.#find(actor, id);
    this.#require(actor, 'incident:manage', incident.app);
    const resolution = note?.trim() || 'resolved by hand';
    await inTransaction(this.#services.store.db, async (tx) => {
      if (!(await tx.incidents.resolve(actor.org.id, id, actor.caller.user.id, resolution))) {
        throw new ConflictError(`incident ${id} is already resolved`);
      }
      await tx.remediations.expireProposed(actor.org.id, id, 'the incident was resolved');
      await tx.events.emit({
        org: { id: actor.org.id, slug: actor.org.slug },
        type: 'incident.resolved',
        ...(incident.app ? { app: incident.app } : {}),
        incidentId: id,
        data: { ...incidentData({ ...incident, state: 'resolved' }), resolution },
      });
      await this.#audit(tx, actor, 'incident.resolve', incident, { resolution });
    });
    this.#services.jobs.queued();
    return this.#find(actor, id);
  }

  /** The org's remediations the caller may read, newest first. */
  async listRemediations(
    actor: Actor,
    filter: { state?: RemediationState; limit: number; offset: number },
  ): Promise<Remediation[]> {
    if (!canAnywhere(actor.caller, 'remediation:read')) throw new ForbiddenError('missing permission remediation:read');
    const list = await this.#remediations.list(actor.org.id, filter.state, filter.limit, filter.offset);
    const incidents = new Map<string, Incident | undefined>();
    const out: Remediation[] = [];
    for (const r of list) {
      if (!incidents.has(r.incidentId))
        incidents.set(r.incidentId, await this.#incidents.get(actor.org.id, r.incidentId));
      const incident = incidents.get(r.incidentId);
      if (incident && canI(actor.caller, 'remediation:read', ...scopeOf(incident.app))) out.push(r);
    }
    return out;
  }

  /** One remediation (`remediation:read` where its App lives); 404 outside the org. */
  async getRemediation(actor: Actor, id: string): Promise<Remediation> {
    const { remediation, incident } = await this.#findRemediation(actor, id);
    this.#require(actor, 'remediation:read', incident.app);
    return remediation;
  }

  /**
   * Approves a proposed remediation (`remediation:approve` where its App lives, and the operation's own
   * permission): runs it as its operation route would, marks the other proposals of the incident expired, and
   * answers the remediation (with its operation's id). 409 when it was decided already, its incident is resolved,
   * or the App has a pending operation (the remediation stays proposed then).
   */
  async approve(actor: Actor, id: string): Promise<Remediation> {
    const { remediation, incident } = await this.#findRemediation(actor, id);
    this.#require(actor, 'remediation:approve', incident.app);
    if (remediation.state !== 'proposed') throw new ConflictError(`remediation ${id} is ${remediation.state}`);
    if (incident.state !== 'open') throw new ConflictError(`incident ${incident.id} is resolved`);
    const app = incident.app;
    if (!app) throw new ConflictError(`incident ${incident.id} is about no App: there is nothing to run`);
    // Claimed first, so two people approving at once cannot both run it.
    const claimed = await inTransaction(this.#services.store.db, (tx) =>
      tx.remediations.decide(actor.org.id, id, { state: 'approved', userId: actor.caller.user.id }),
    );
    if (!claimed) throw new ConflictError(`remediation ${id} was decided meanwhile`);
    let operationId: string | undefined;
    try {
      operationId = await this.#run(actor, remediation, app);
    } catch (err) {
      await this.#remediations.reopen(actor.org.id, id);
      throw err;
    }
    const org = { id: actor.org.id, slug: actor.org.slug };
    await inTransaction(this.#services.store.db, async (tx) => {
      if (operationId) await tx.remediations.setOperation(actor.org.id, id, operationId);
      await tx.remediations.expireProposed(
        actor.org.id,
        incident.id,
        'another remediation was approved',
        new Date(),
        id,
      );
      await tx.events.emit({
        org,
        type: 'remediation.approved',
        app,
        incidentId: incident.id,
        remediationId: id,
        data: { action: remediation.action, revision: remediation.revision, operation_id: operationId ?? null },
      });
      // Unfreezing is done once the spec says so: there is no operation to wait for.
      if (!operationId && (await tx.remediations.finish(actor.org.id, id, 'Succeeded'))) {
        await tx.events.emit({
          org,
          type: 'remediation.executed',
          app,
          incidentId: incident.id,
          remediationId: id,
          data: { action: remediation.action, phase: 'Succeeded', message: 'spec.freeze cleared' },
        });
      }
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'remediation.approve',
        resourceType: 'remediation',
        resourceId: id,
        resourceName: app.name,
        details: {
          incident_id: incident.id,
          action: remediation.action,
          revision: remediation.revision,
          operation_id: operationId ?? null,
        },
      });
    });
    this.#services.jobs.queued();
    return (await this.#remediations.get(actor.org.id, id)) as Remediation;
  }

  /** Rejects a proposed remediation (`remediation:approve` where its App lives); 409 when decided already. */
  async reject(actor: Actor, id: string, reason: string | undefined): Promise<Remediation> {
    const { remediation, incident } = await this.#findRemediation(actor, id);
    this.#require(actor, 'remediation:approve', incident.app);
    await inTransaction(this.#services.store.db, async (tx) => {
      const ok = await tx.remediations.decide(actor.org.id, id, {
        state: 'rejected',
        userId: actor.caller.user.id,
        ...(reason ? { reason } : {}),
      });
      if (!ok) throw new ConflictError(`remediation ${id} is ${remediation.state}`);
      await tx.events.emit({
        org: { id: actor.org.id, slug: actor.org.slug },
        type: 'remediation.rejected',
        ...(incident.app ? { app: incident.app } : {}),
        incidentId: incident.id,
        remediationId: id,
        data: { action: remediation.action, reason: reason ?? '' },
      });
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'remediation.reject',
        resourceType: 'remediation',
        resourceId: id,
        resourceName: incident.app?.name ?? incident.title,
        details: { incident_id: incident.id, action: remediation.action, reason: reason ?? '' },
      });
    });
    this.#services.jobs.queued();
    return (await this.#remediations.get(actor.org.id, id)) as Remediation;
  }

  /** Runs the remediation through the App use-cases; answers the operation id (none for unfreeze). */
  async #run(actor: Actor, r: Remediation, app: EventApp): Promise<string | undefined> {
    const ref = { namespace: app.namespace, name: app.name };
    switch (r.action) {
      case 'rollback':
        return (await this.#operations.rollback(actor, ref, r.revision ?? '', { pauseAutomated: r.pauseAutomated }))
          .operation_id;
      case 'restart':
        return (await this.#operations.restart(actor, ref)).operation_id;
      case 'resync':
        return (await this.#operations.sync(actor, ref)).operation_id;
      case 'unfreeze':
        await this.#apps.setFrozen(actor, ref, false);
        return undefined;
    }
  }

  async #find(actor: Actor, id: string): Promise<Incident> {
    const incident = await this.#incidents.get(actor.org.id, id);
    if (!incident) throw new NotFoundError(`incident ${id} not found`);
    return incident;
  }

  async #findRemediation(actor: Actor, id: string): Promise<{ remediation: Remediation; incident: Incident }> {
    const remediation = await this.#remediations.get(actor.org.id, id);
    if (!remediation) throw new NotFoundError(`remediation ${id} not found`);
    return { remediation, incident: await this.#find(actor, remediation.incidentId) };
  }

  async #audit(
    tx: TransactionStores,
    actor: Actor,
    action: string,
    incident: Incident,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    await tx.audit.record({
      orgId: actor.org.id,
      userId: actor.caller.user.id,
      action,
      resourceType: 'incident',
      resourceId: incident.id,
      resourceName: incident.app?.name ?? incident.title,
      details,
    });
  }
}
