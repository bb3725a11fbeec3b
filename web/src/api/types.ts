/**
 * The shapes the UI reads, taken from the server's own code (type-only imports: nothing of the server is bundled),
 * so a change of a view on the server is a type error here.
 */

export type { ObjectDiff } from '../../../src/api/apps/diff.ts';
export type { AppDiff } from '../../../src/api/apps/diff-service.ts';
export type { TreeNode } from '../../../src/api/apps/tree.ts';
export type { AppView } from '../../../src/api/apps/view.ts';
export type { ClusterJson as Cluster } from '../../../src/api/clusters/view.ts';
export type { ReferenceView as StoreReference, StoreView as SecretStore } from '../../../src/api/secret-stores/view.ts';
export type { TestOutcome as StoreTestResult } from '../../../src/secrets/tester.ts';

import type { AppEvent } from '../../../src/api/apps/status-service.ts';
import type { statusView } from '../../../src/api/apps/view.ts';

export type { AppEvent };

export type StatusView = ReturnType<typeof statusView>;

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
