/**
 * The contract of /health-checks (docs/api.md "Health checks"): an org's custom health checks in CEL, one per
 * apiVersion and kind, applying to every App of the org (an App's own `spec.health.checks` replace them for its
 * objects). An expression that does not compile is 422 naming the error (the document cannot state CEL's grammar).
 */
import { Type } from 'typebox';
import { errors } from '../contract/errors.ts';
import { component, DeletedById, PathId, ref, Timestamp } from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;

const expression = (what: string) => Type.String({ minLength: 1, maxLength: 2048, description: what });

const checkFields = {
  api_version: Type.String({ minLength: 1, maxLength: 253, description: 'apiVersion of the objects, exactly' }),
  kind: Type.String({ minLength: 1, maxLength: 63, description: 'kind of the objects' }),
  current: expression('CEL over apiVersion, kind, metadata, spec, status: true when Healthy'),
};

export const HealthCheck = component(
  'HealthCheck',
  Type.Object(
    {
      id: Type.String(),
      ...checkFields,
      in_progress: Type.Optional(Type.String({ description: 'CEL: true while Progressing (evaluated first)' })),
      failed: Type.Optional(Type.String({ description: 'CEL: true when Degraded (evaluated second)' })),
      created_at: Timestamp(),
      updated_at: Timestamp(),
    },
    closed,
  ),
);

export const HealthCheckRequest = component(
  'HealthCheckRequest',
  Type.Object(
    {
      ...checkFields,
      in_progress: Type.Optional(expression('CEL: true while Progressing (evaluated first)')),
      failed: Type.Optional(expression('CEL: true when Degraded (evaluated second)')),
    },
    { ...closed, description: 'the check of one apiVersion and kind; it replaces the one the org has for them' },
  ),
);

const tags = ['health-checks'];
const IdParams = Type.Object({ id: PathId('health check id (hc_…)') });
const NOT_FOUND = { 404: 'no such health check in this organization' };

export const listHealthChecksRoute = {
  tags,
  summary: 'Custom health checks of the caller org (healthcheck:read)',
  response: { 200: Type.Object({ health_checks: Type.Array(ref(HealthCheck)) }, closed), ...errors() },
};
export const putHealthCheckRoute = {
  tags,
  summary:
    'Create the check of an apiVersion and kind, or replace it (healthcheck:manage; audited healthcheck.put); 201 when new',
  body: ref(HealthCheckRequest),
  response: {
    200: ref(HealthCheck),
    201: ref(HealthCheck),
    ...errors(
      { 409: 'the same kind written concurrently' },
      { 422: 'an expression that does not compile, names an unknown function or variable, or passes a limit' },
    ),
  },
};
export const getHealthCheckRoute = {
  tags,
  summary: 'One health check (healthcheck:read)',
  params: IdParams,
  response: { 200: ref(HealthCheck), ...errors(NOT_FOUND) },
};
export const deleteHealthCheckRoute = {
  tags,
  summary: 'Delete a health check (healthcheck:manage; audited healthcheck.delete)',
  params: IdParams,
  response: {
    200: ref(DeletedById),
    ...errors(NOT_FOUND),
  },
};

export const HEALTH_CHECK_COMPONENTS = [HealthCheck, HealthCheckRequest];
