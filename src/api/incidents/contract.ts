/**
 * The contract of /incidents and /remediations (docs/incidents.md): incidents svc detected on Apps or external
 * emitters reported, with their timeline; the remediations svc proposes, approved (run as a normal operation) or
 * rejected.
 */
import { Type } from 'typebox';
import { REMEDIATION_ACTIONS } from '../../core/remediation-plan.ts';
import { errors } from '../contract/errors.ts';
import {
  component,
  DnsLabel,
  EmptyBody,
  extended,
  IdParams,
  Nullable,
  OpenObject,
  PageFields,
  PageQuery,
  ref,
  StringEnum,
  Timestamp,
} from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;
const SEVERITIES = ['info', 'warning', 'critical'] as const;
export const INCIDENT_STATES = ['open', 'resolved'] as const;
export const REMEDIATION_STATES = ['proposed', 'approved', 'rejected', 'executed', 'expired'] as const;
const Cause = Type.String({ pattern: '^[A-Za-z][A-Za-z0-9]{0,62}$', description: 'a CamelCase word, e.g. Degraded' });
const Nullstring = Nullable(Type.String());

const incidentFields = {
  id: Type.String(),
  app: Nullable(Type.Object({ name: Type.String(), namespace: Type.String(), cluster: Type.String() }, closed), {
    description: 'the App it is about; null for none',
  }),
  cause: Type.String({ description: 'Degraded, SyncFailed or Stalled when detected; the emitter’s otherwise' }),
  source: StringEnum(['detector', 'external'] as const),
  severity: Type.String({ description: SEVERITIES.join(', ') }),
  title: Type.String(),
  message: Type.String(),
  evidence: OpenObject(),
  state: StringEnum(INCIDENT_STATES),
  opened_by: Type.String({ description: 'user id; empty when svc opened it' }),
  opened_at: Timestamp(),
  acknowledged_by: Nullstring,
  acknowledged_at: Nullable(Timestamp()),
  resolved_by: Nullstring,
  resolved_at: Nullable(Timestamp()),
  resolution: Nullstring,
};

export const Incident = component('Incident', Type.Object(incidentFields, closed));

export const EmittedIncident = extended('EmittedIncident', Incident, {
  created: Type.Boolean({ description: 'false: an open one of the same App and cause' }),
});

export const Remediation = component(
  'Remediation',
  Type.Object(
    {
      id: Type.String(),
      incident_id: Type.String(),
      action: StringEnum(REMEDIATION_ACTIONS),
      revision: Nullstring,
      pause_automated: Type.Boolean(),
      evidence: OpenObject(),
      state: StringEnum(REMEDIATION_STATES),
      operation_id: Nullstring,
      decided_by: Nullstring,
      decided_at: Nullable(Timestamp()),
      reason: Nullstring,
      result: Nullstring,
      finished_at: Nullable(Timestamp()),
      created_at: Timestamp(),
    },
    closed,
  ),
);

export const TimelineEntry = component(
  'TimelineEntry',
  Type.Union([
    Type.Object(
      {
        at: Timestamp(),
        kind: Type.Literal('event'),
        event_id: Type.String(),
        type: Type.String(),
        remediation_id: Nullstring,
        data: Type.Unknown(),
      },
      closed,
    ),
    Type.Object(
      { at: Timestamp(), kind: Type.Literal('operation'), event_id: Type.String(), data: Type.Unknown() },
      closed,
    ),
    Type.Object(
      {
        at: Timestamp(),
        kind: Type.Literal('delivery'),
        delivery_id: Type.String(),
        event_id: Type.String(),
        webhook_id: Type.String(),
        event_type: Type.String(),
        state: Type.String(),
        attempts: Type.Integer(),
        response_code: Nullable(Type.Integer()),
        latency_ms: Nullable(Type.Integer()),
      },
      closed,
    ),
  ]),
);

export const IncidentDetail = extended('IncidentDetail', Incident, {
  remediations: Type.Array(ref(Remediation)),
  timeline: Type.Array(ref(TimelineEntry)),
});

export const IncidentReport = component(
  'IncidentReport',
  Type.Object(
    {
      title: Type.String({ minLength: 1, maxLength: 200 }),
      message: Type.Optional(Type.String({ maxLength: 4000 })),
      cause: Type.Optional({ ...Cause, description: 'default External' }),
      severity: Type.Optional(StringEnum(SEVERITIES, { description: 'default warning' })),
      app: Type.Optional(DnsLabel('the org’s App it is about')),
      details: Type.Optional(OpenObject()),
    },
    { ...closed, description: 'an incident reported from outside' },
  ),
);

const tags = ['incidents'];
const INCIDENT_404 = { 404: 'no such incident in this organization' };
const INCIDENT_409 = { 409: 'the incident is resolved or already acknowledged' };
const REMEDIATION_404 = { 404: 'no such remediation in this organization' };

export const listIncidentsRoute = {
  tags,
  summary: 'Incidents the caller may read (incident:read), newest first; filter by state, App name and cause',
  querystring: Type.Object(
    {
      state: Type.Optional(StringEnum(INCIDENT_STATES)),
      app: Type.Optional(DnsLabel('App name')),
      cause: Type.Optional(Cause),
      ...PageQuery,
    },
    closed,
  ),
  response: { 200: Type.Object({ incidents: Type.Array(ref(Incident)), ...PageFields }, closed), ...errors() },
};
export const emitIncidentRoute = {
  tags,
  summary:
    'Report an incident from outside (incident:manage where its App lives; audited incident.emit); 201 when opened, 200 with the open one of the same App and cause',
  body: ref(IncidentReport),
  response: {
    200: ref(EmittedIncident),
    201: ref(EmittedIncident),
    ...errors({ 404: 'no such App in this organization', 503: 'no management cluster configured (for an App)' }),
  },
};
export const getIncidentRoute = {
  tags,
  summary: 'An incident with its remediations and timeline (incident:read): events, operations, deliveries',
  params: IdParams,
  response: { 200: ref(IncidentDetail), ...errors(INCIDENT_404) },
};
export const acknowledgeIncidentRoute = {
  tags,
  summary: 'Acknowledge an open incident (incident:manage; audited incident.acknowledge)',
  params: IdParams,
  body: ref(EmptyBody),
  response: { 200: ref(Incident), ...errors(INCIDENT_404, INCIDENT_409) },
};
export const resolveIncidentRoute = {
  tags,
  summary:
    'Resolve an open incident by hand (incident:manage; audited incident.resolve); detected ones also resolve themselves',
  params: IdParams,
  body: Type.Object({ resolution: Type.Optional(Type.String({ maxLength: 1000 })) }, closed),
  response: { 200: ref(Incident), ...errors(INCIDENT_404, { 409: 'the incident is resolved' }) },
};
export const listRemediationsRoute = {
  tags,
  summary: 'Remediations the caller may read (remediation:read), newest first; filter by state',
  querystring: Type.Object({ state: Type.Optional(StringEnum(REMEDIATION_STATES)), ...PageQuery }, closed),
  response: { 200: Type.Object({ remediations: Type.Array(ref(Remediation)), ...PageFields }, closed), ...errors() },
};
export const getRemediationRoute = {
  tags,
  summary: 'One remediation (remediation:read)',
  params: IdParams,
  response: { 200: ref(Remediation), ...errors(REMEDIATION_404) },
};
export const approveRemediationRoute = {
  tags,
  summary:
    'Approve: run the remediation as its operation (remediation:approve and the operation’s own permission; 409 while another operation is pending); audited remediation.approve',
  params: IdParams,
  body: ref(EmptyBody),
  response: {
    200: ref(Remediation),
    ...errors(REMEDIATION_404, {
      409: 'decided already, its incident resolved, or the App has a pending operation',
      503: 'no management cluster configured',
    }),
  },
};
export const rejectRemediationRoute = {
  tags,
  summary: 'Reject a proposed remediation (remediation:approve; audited remediation.reject)',
  params: IdParams,
  body: Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000 })) }, closed),
  response: { 200: ref(Remediation), ...errors(REMEDIATION_404, { 409: 'decided already' }) },
};

export const INCIDENT_COMPONENTS = [
  Incident,
  EmittedIncident,
  Remediation,
  TimelineEntry,
  IncidentDetail,
  IncidentReport,
];
