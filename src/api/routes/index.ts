/** Every route group of the API under /api/v1, in registration order (GET /apps/stream is added by ../app.ts). */
import type { ApiRoutes } from '../api.ts';
import { adoptRoutes } from './adopt.ts';
import { appLiveRoutes } from './app-live.ts';
import { appOperationRoutes } from './app-operations.ts';
import { appStatusRoutes } from './app-status.ts';
import { approvalRoutes } from './approvals.ts';
import { appRoutes } from './apps.ts';
import { appSetRoutes } from './appsets.ts';
import { auditRoutes } from './audit.ts';
import { authRoutes } from './auth.ts';
import { catalogRoutes } from './catalog.ts';
import { cliLoginRoutes } from './cli-login.ts';
import { clusterRoutes } from './clusters.ts';
import { deliveryWindowRoutes } from './delivery-windows.ts';
import { healthCheckRoutes } from './health-checks.ts';
import { importRoutes } from './import.ts';
import { incidentRoutes } from './incidents.ts';
import { previewRoutes } from './preview.ts';
import { registryRoutes } from './registries.ts';
import { registryNotificationRoutes } from './registry-notifications.ts';
import { repositoryRoutes } from './repositories.ts';
import { roleBindingRoutes } from './role-bindings.ts';
import { secretStoreRoutes } from './secret-stores.ts';
import { teamRoutes } from './teams.ts';
import { webhookRoutes } from './webhooks.ts';

export const API_ROUTES: readonly ApiRoutes[] = [
  authRoutes,
  cliLoginRoutes,
  auditRoutes,
  roleBindingRoutes,
  secretStoreRoutes,
  appRoutes,
  appStatusRoutes,
  appOperationRoutes,
  appLiveRoutes,
  previewRoutes,
  adoptRoutes,
  appSetRoutes,
  teamRoutes,
  webhookRoutes,
  incidentRoutes,
  clusterRoutes,
  registryRoutes,
  healthCheckRoutes,
  catalogRoutes,
  approvalRoutes,
  deliveryWindowRoutes,
  repositoryRoutes,
  importRoutes,
  registryNotificationRoutes,
];
