/**
 * Incidents (docs/incidents.md): opened by the incident detector or an external emitter, at most one open per App
 * and cause (the unique `open_key`), acknowledged by a person, resolved when the App recovers or by hand.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { EventApp } from '../core/events.ts';
import type { IncidentTable, Tables } from './database.ts';

export type IncidentState = 'open' | 'resolved';

export interface Incident {
  id: string;
  orgId: string;
  app: EventApp | undefined;
  cause: string;
  /** `detector` (svc saw it on the App) or `external` (POST /incidents). */
  source: 'detector' | 'external';
  severity: string;
  title: string;
  message: string;
  evidence: Record<string, unknown>;
  state: IncidentState;
  openedBy: string;
  openedAt: string;
  acknowledgedBy: string | null;
  acknowledgedAt: string | null;
  resolvedBy: string | null;
  resolvedAt: string | null;
  resolution: string | null;
}

/** What opening an incident needs. */
export type NewIncident = Omit<
  Incident,
  'id' | 'state' | 'openedAt' | 'acknowledgedBy' | 'acknowledgedAt' | 'resolvedBy' | 'resolvedAt' | 'resolution'
>;

/**
 * The dedup key of an open incident: one per org, App (named as in its org: App names are unique there) or none,
 * and cause.
 */
export function openKey(orgId: string, app: EventApp | undefined, cause: string): string {
  return `${orgId}/${app ? app.name : '-'}/${cause}`;
}

function toIncident(r: IncidentTable): Incident {
  return {
    id: r.id,
    orgId: r.org_id,
    app:
      r.app_name === null
        ? undefined
        : { name: r.app_name, namespace: r.app_namespace ?? '', cluster: r.app_cluster ?? '' },
    cause: r.cause,
    source: r.source === 'external' ? 'external' : 'detector',
    severity: r.severity,
    title: r.title,
    message: r.message,
    evidence: JSON.parse(r.evidence) as Record<string, unknown>,
    state: r.state === 'resolved' ? 'resolved' : 'open',
    openedBy: r.opened_by,
    openedAt: r.opened_at,
    acknowledgedBy: r.acknowledged_by,
    acknowledgedAt: r.acknowledged_at,
    resolvedBy: r.resolved_by,
    resolvedAt: r.resolved_at,
    resolution: r.resolution,
  };
}

/** Filters of `list`. */
export interface IncidentFilter {
  state?: IncidentState;
  app?: string;
  cause?: string;
  limit: number;
  offset: number;
}

export class IncidentStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /**
   * Opens an incident unless one is open for the same org, App and cause; answers the incident and whether it is
   * new. Run it in a transaction: the existing one is looked up first, and the unique key refuses a concurrent twin.
   */
  async open(n: NewIncident, now = new Date()): Promise<{ incident: Incident; created: boolean }> {
    const key = openKey(n.orgId, n.app, n.cause);
    const existing = await this.findOpen(n.orgId, n.app, n.cause);
    if (existing) return { incident: existing, created: false };
    const row: IncidentTable = {
      id: `inc_${randomUUID().replaceAll('-', '')}`,
      org_id: n.orgId,
      app_name: n.app?.name ?? null,
      app_namespace: n.app?.namespace ?? null,
      app_cluster: n.app?.cluster ?? null,
      cause: n.cause,
      source: n.source,
      severity: n.severity,
      title: n.title,
      message: n.message,
      evidence: JSON.stringify(n.evidence),
      state: 'open',
      open_key: key,
      opened_by: n.openedBy,
      opened_at: now.toISOString(),
      acknowledged_by: null,
      acknowledged_at: null,
      resolved_by: null,
      resolved_at: null,
      resolution: null,
    };
    await this.#db.insertInto('incident').values(row).execute();
    return { incident: toIncident(row), created: true };
  }

  /** The open incident of the org about `app` (or none) and `cause`, if there is one. */
  async findOpen(orgId: string, app: EventApp | undefined, cause: string): Promise<Incident | undefined> {
    const row = await this.#db
      .selectFrom('incident')
      .selectAll()
      .where('open_key', '=', openKey(orgId, app, cause))
      .executeTakeFirst();
    return row ? toIncident(row) : undefined;
  }

  /** One incident of the org, or undefined (another org's reads as absent). */
  async get(orgId: string, id: string): Promise<Incident | undefined> {
    const row = await this.#db
      .selectFrom('incident')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toIncident(row) : undefined;
  }

  /** The org's incidents, newest first, filtered by state, App name and cause. */
  async list(orgId: string, f: IncidentFilter): Promise<Incident[]> {
    const rows = await this.#db
      .selectFrom('incident')
      .selectAll()
      .where('org_id', '=', orgId)
      .$if(f.state !== undefined, (q) => q.where('state', '=', f.state as string))
      .$if(f.app !== undefined, (q) => q.where('app_name', '=', f.app as string))
      .$if(f.cause !== undefined, (q) => q.where('cause', '=', f.cause as string))
      .orderBy('opened_at', 'desc')
      .orderBy('id', 'desc')
      .limit(f.limit)
      .offset(f.offset)
      .execute();
    return rows.map(toIncident);
  }

  /** The open incidents the detector opened about the org's App `appName`. */
  async openDetected(orgId: string, appName: string): Promise<Incident[]> {
    const rows = await this.#db
      .selectFrom('incident')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('state', '=', 'open')
      .where('source', '=', 'detector')
      .where('app_name', '=', appName)
      .orderBy('opened_at')
      .execute();
    return rows.map(toIncident);
  }

  /** Marks an open incident acknowledged by `userId`; false when it is not open or already acknowledged. */
  async acknowledge(orgId: string, id: string, userId: string, now = new Date()): Promise<boolean> {
    const r = await this.#db
      .updateTable('incident')
      .set({ acknowledged_by: userId, acknowledged_at: now.toISOString() })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('state', '=', 'open')
      .where('acknowledged_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Resolves an open incident (`by`: a user id, '' for svc); false when it was not open. */
  async resolve(orgId: string, id: string, by: string, resolution: string, now = new Date()): Promise<boolean> {
    const r = await this.#db
      .updateTable('incident')
      .set({ state: 'resolved', open_key: null, resolved_by: by, resolved_at: now.toISOString(), resolution })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('state', '=', 'open')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}
