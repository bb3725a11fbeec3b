/**
 * The shapes the UI reads, taken from the server's own code (type-only imports: nothing of the server is bundled),
 * so a change of a view on the server is a type error here.
 */

export type { AppDiff } from '../../../src/api/apps/diff-service.ts';
export type { AppView } from '../../../src/api/apps/view.ts';
export type { ClusterJson as Cluster } from '../../../src/api/clusters/view.ts';
export type { TimelineEntry } from '../../../src/api/incidents/views.ts';
export type { TestResult as RegistryTestResult } from '../../../src/api/registries/use-cases.ts';
export type { ReferenceView as StoreReference, StoreView as SecretStore } from '../../../src/api/secret-stores/view.ts';
export type {
  TeamBindingView as TeamBinding,
  TeamMemberView as TeamMember,
  TeamView as Team,
} from '../../../src/api/teams/view.ts';
export type { ObjectDiff } from '../../../src/engine/diff.ts';
export type { TreeNode } from '../../../src/engine/tree.ts';
export type { TestOutcome as StoreTestResult } from '../../../src/secrets/tester.ts';

import type { AppEvent } from '../../../src/api/apps/status-use-cases.ts';
import type { statusView } from '../../../src/api/apps/view.ts';
import type { incidentView, remediationView } from '../../../src/api/incidents/views.ts';
import type { registryView } from '../../../src/api/registries/view.ts';
import type { deliveryView, webhookView } from '../../../src/api/webhooks/view.ts';

export type { AppEvent };

export type StatusView = ReturnType<typeof statusView>;
export type Registry = ReturnType<typeof registryView>;
export type Webhook = ReturnType<typeof webhookView>;
export type Delivery = ReturnType<typeof deliveryView>;
export type Incident = ReturnType<typeof incidentView>;
export type Remediation = ReturnType<typeof remediationView>;

/** A page of GET /apps with a query. */
export interface AppPage {
  apps: import('../../../src/api/apps/view.ts').AppView[];
  total: number;
  next_cursor: string | null;
  resource_version: string;
}

export interface History {
  name: string;
  revision: string;
  previous_revisions: string[];
  last_sync_at: string | null;
}

export interface Me {
  user: { id: string; email: string; name: string; role: string; orgId: string };
}

export interface Org {
  id: string;
  name: string;
  slug: string;
}

export interface OperationAnswer {
  message: string;
  operation_id: string;
}
