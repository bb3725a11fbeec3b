/** How incidents and their events name an org and an App, and what an incident event carries. */
import type { AppResource } from '../core/app-schema.ts';
import type { EventApp } from '../core/events.ts';
import type { Incident } from '../store/incidents.ts';

/** The org owning an App's namespace. */
export interface OrgRef {
  id: string;
  slug: string;
}

/** The App as events and incidents name it: its name and destination. */
export function eventAppOf(app: AppResource): EventApp {
  return {
    name: app.metadata.name,
    namespace: app.spec.destination.namespace,
    cluster: app.spec.destination.cluster ?? '',
  };
}

/** The `data` of incident events. */
export function incidentData(i: Incident): Record<string, unknown> {
  return {
    id: i.id,
    cause: i.cause,
    source: i.source,
    severity: i.severity,
    title: i.title,
    message: i.message,
    state: i.state,
    opened_at: i.openedAt,
  };
}
