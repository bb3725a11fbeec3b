/**
 * Every named schema of the API, registered once with Fastify (validation and serialization resolve `$ref`s to
 * them) and emitted as `#/components/schemas/<name>` in the OpenAPI document (src/api/server/openapi.ts).
 */

import type { TSchema } from 'typebox';
import { API_KEY_COMPONENTS } from '../api-keys/contract.ts';
import { APPROVAL_COMPONENTS } from '../approval-policy/contract.ts';
import { ADOPT_COMPONENTS } from '../apps/adopt-contract.ts';
import { APP_OBJECT_COMPONENTS } from '../apps/contract.ts';
import { APP_CREATE_COMPONENTS } from '../apps/create-contract.ts';
import { APP_LIVE_COMPONENTS } from '../apps/live-contract.ts';
import { APP_ROUTE_COMPONENTS } from '../apps/routes-contract.ts';
import { APPSET_COMPONENTS } from '../appsets/contract.ts';
import { AUDIT_COMPONENTS } from '../audit/contract.ts';
import { AUTH_COMPONENTS } from '../auth/contract.ts';
import { CATALOG_COMPONENTS } from '../catalog/contract.ts';
import { CLUSTER_COMPONENTS } from '../clusters/contract.ts';
import { DELIVERY_WINDOW_COMPONENTS } from '../delivery-windows/contract.ts';
import { HEALTH_CHECK_COMPONENTS } from '../health-checks/contract.ts';
import { IMPORT_COMPONENTS } from '../import/contract.ts';
import { INCIDENT_COMPONENTS } from '../incidents/contract.ts';
import { PREVIEW_COMPONENTS } from '../preview/contract.ts';
import { REGISTRY_COMPONENTS } from '../registries/contract.ts';
import { REPOSITORY_COMPONENTS } from '../repositories/contract.ts';
import { ROLE_BINDING_COMPONENTS } from '../role-bindings/contract.ts';
import { SECRET_STORE_COMPONENTS } from '../secret-stores/contract.ts';
import { TEAM_COMPONENTS } from '../teams/contract.ts';
import { WEBHOOK_COMPONENTS } from '../webhooks/contract.ts';
import { ErrorBody } from './errors.ts';
import { type Component, Deleted, DeletedById, EmptyBody } from './schema.ts';

export const COMPONENTS: readonly Component<TSchema>[] = [
  ErrorBody,
  EmptyBody,
  Deleted,
  DeletedById,
  ...AUTH_COMPONENTS,
  ...API_KEY_COMPONENTS,
  ...AUDIT_COMPONENTS,
  ...ROLE_BINDING_COMPONENTS,
  ...TEAM_COMPONENTS,
  ...APP_OBJECT_COMPONENTS,
  ...APP_CREATE_COMPONENTS,
  ...APP_ROUTE_COMPONENTS,
  ...APP_LIVE_COMPONENTS,
  ...ADOPT_COMPONENTS,
  ...APPSET_COMPONENTS,
  ...WEBHOOK_COMPONENTS,
  ...INCIDENT_COMPONENTS,
  ...CLUSTER_COMPONENTS,
  ...REGISTRY_COMPONENTS,
  ...HEALTH_CHECK_COMPONENTS,
  ...CATALOG_COMPONENTS,
  ...APPROVAL_COMPONENTS,
  ...DELIVERY_WINDOW_COMPONENTS,
  ...REPOSITORY_COMPONENTS,
  ...IMPORT_COMPONENTS,
  ...PREVIEW_COMPONENTS,
  ...SECRET_STORE_COMPONENTS,
];
