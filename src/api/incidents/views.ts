/** How incidents, remediations and an incident's timeline look in the API (docs/incidents.md). */
import type { Static } from 'typebox';
import type { SvcEvent } from '../../core/events.ts';
import type { Delivery } from '../../store/deliveries.ts';
import type { Incident } from '../../store/incidents.ts';
import type { Remediation } from '../../store/remediations.ts';
import type { Incident as IncidentView, Remediation as RemediationView } from './contract.ts';

export function incidentView(i: Incident): Static<typeof IncidentView> {
  return {
    id: i.id,
    app: i.app ?? null,
    cause: i.cause,
    source: i.source,
    severity: i.severity,
    title: i.title,
    message: i.message,
    evidence: i.evidence,
    state: i.state,
    opened_by: i.openedBy,
    opened_at: i.openedAt,
    acknowledged_by: i.acknowledgedBy,
    acknowledged_at: i.acknowledgedAt,
    resolved_by: i.resolvedBy,
    resolved_at: i.resolvedAt,
    resolution: i.resolution,
  };
}

export function remediationView(r: Remediation): Static<typeof RemediationView> {
  return {
    id: r.id,
    incident_id: r.incidentId,
    action: r.action,
    revision: r.revision,
    pause_automated: r.pauseAutomated,
    evidence: r.evidence,
    state: r.state,
    operation_id: r.operationId,
    decided_by: r.decidedBy,
    decided_at: r.decidedAt,
    reason: r.reason,
    result: r.result,
    finished_at: r.finishedAt,
    created_at: r.createdAt,
  };
}

/** One entry of an incident's timeline. */
export type TimelineEntry =
  | { at: string; kind: 'event'; event_id: string; type: string; remediation_id: string | null; data: unknown }
  | { at: string; kind: 'operation'; event_id: string; data: unknown }
  | {
      at: string;
      kind: 'delivery';
      delivery_id: string;
      event_id: string;
      webhook_id: string;
      event_type: string;
      state: string;
      attempts: number;
      response_code: number | null;
      latency_ms: number | null;
    };

/**
 * The timeline: svc's events about the incident and its App while it was open, the operations the App finished
 * meanwhile, and the webhook deliveries of those events, oldest first.
 */
export function timelineOf(events: SvcEvent[], deliveries: Delivery[]): TimelineEntry[] {
  const entries: TimelineEntry[] = events.map((e) =>
    e.type === 'operation.finished'
      ? { at: e.createdAt, kind: 'operation' as const, event_id: e.id, data: e.data }
      : {
          at: e.createdAt,
          kind: 'event' as const,
          event_id: e.id,
          type: e.type,
          remediation_id: e.remediationId ?? null,
          data: e.data,
        },
  );
  for (const d of deliveries) {
    entries.push({
      at: d.createdAt,
      kind: 'delivery',
      delivery_id: d.id,
      event_id: d.eventId,
      webhook_id: d.webhookId,
      event_type: d.eventType,
      state: d.state,
      attempts: d.attempts,
      response_code: d.responseCode,
      latency_ms: d.latencyMs,
    });
  }
  const rank = { event: 0, operation: 0, delivery: 1 } as const;
  return entries.sort((a, b) => a.at.localeCompare(b.at) || rank[a.kind] - rank[b.kind]);
}
