/**
 * The App objects of the API (contract §2.1, §2.2, §4.2): the app object and status view the /apps routes answer,
 * and the create payload, as named components. The answers reuse the App resource's own schemas (src/core/
 * app-schema.ts) for source, sync policy, resources, conditions and the operation state, so the API shows exactly
 * what the resource holds; the create payload adds the rules the API enforces on what reaches a command line or a
 * registry (./create-contract.ts).
 */
import { Type } from 'typebox';
import {
  BlockedBySchema,
  ConditionSchema,
  HEALTH_STATUSES,
  HeldAtSchema,
  OperationStateSchema,
  ResourceStatusSchema,
  SourceSchema,
  SYNC_STATUSES,
  SyncPolicySchema,
} from '../../core/app-schema.ts';
import { component, DnsLabel, Nullable, ref, StringEnum, withoutDefaults } from '../contract/schema.ts';

/** An App named by a request path: destination namespace and name, both DNS-1123 labels as at create. */
export const AppParams = Type.Object({
  namespace: DnsLabel('destination namespace of the App'),
  name: DnsLabel('App name'),
});

export const AppSource = component('AppSource', withoutDefaults(SourceSchema));
export const AppSyncPolicy = component('AppSyncPolicy', withoutDefaults(SyncPolicySchema));
export const AppResourceStatus = component('AppResourceStatus', withoutDefaults(ResourceStatusSchema));
export const AppCondition = component('AppCondition', withoutDefaults(ConditionSchema));
export const AppOperationState = component('AppOperationState', withoutDefaults(OperationStateSchema));
export const AppBlockedBy = component('AppBlockedBy', BlockedBySchema);
export const AppHeldAt = component('AppHeldAt', HeldAtSchema);
export const AppImportPending = component(
  'AppImportPending',
  Type.Object(
    {
      api_version: Type.String({ description: 'of the object the App was imported from, e.g. argoproj.io/v1alpha1' }),
      kind: Type.String({ description: 'Application, Kustomization or HelmRelease' }),
      namespace: Type.String({ description: "the object's namespace; empty when it was given as YAML only" }),
      name: Type.String(),
      cluster: Type.String({
        description: 'the registered cluster holding it; empty = the management cluster (or YAML only)',
      }),
    },
    {
      additionalProperties: false,
      description:
        'An App imported and not yet confirmed (docs/migrate.md): it never prunes and orphans its objects when deleted until POST /import/confirm; POST /import/undo gives it back',
    },
  ),
);

/** The app object of contract §2.1 (plus `sync_policy` and `frozen`, which clients need to render an app). */
export const App = component(
  'App',
  Type.Object(
    {
      name: Type.String(),
      namespace: Type.String({ description: 'destination namespace' }),
      cluster: Type.String({ description: 'destination cluster; empty = the management cluster' }),
      source: ref(AppSource),
      sync_policy: ref(AppSyncPolicy),
      frozen: Type.Boolean(),
      sync_status: StringEnum(SYNC_STATUSES),
      health: StringEnum(HEALTH_STATUSES),
      health_reason: Type.String(),
      revision: Type.String(),
      url: Type.String(),
      resources: Type.Array(ref(AppResourceStatus)),
      conditions: Type.Array(ref(AppCondition)),
      depends_on: Type.Array(Type.String(), { description: 'names of the Apps this App waits for (spec.dependsOn)' }),
      blocked_by: Type.Array(ref(AppBlockedBy), {
        description: 'the dependencies not Synced and Healthy at their current revision, and why; empty when none',
      }),
      held_at: Nullable(ref(AppHeldAt), {
        description: 'a held rollback (revision, who, why, when) until POST .../release; null when none',
      }),
      import_pending: Nullable(ref(AppImportPending), {
        description: 'the object a pending import came from, until it is confirmed or undone; null otherwise',
      }),
      updated_at: Type.String({ description: 'RFC 3339: the newest known change; empty when unknown' }),
    },
    { additionalProperties: false },
  ),
);

/** The status view of contract §2.2 (plus `pending_operation`, the id of an operation not yet picked up). */
export const AppStatus = component(
  'AppStatus',
  Type.Object(
    {
      name: Type.String(),
      sync_status: StringEnum(SYNC_STATUSES),
      health: StringEnum(HEALTH_STATUSES),
      health_reason: Type.String(),
      revision: Type.String(),
      observed: Type.String({ description: 'the upstream revision the operator last observed' }),
      last_sync_at: Nullable(Type.String()),
      frozen: Type.Boolean(),
      operationState: Nullable(ref(AppOperationState)),
      pending_operation: Nullable(Type.String({ description: 'id of a requested operation not yet picked up' })),
      blocked_by: Type.Array(ref(AppBlockedBy), {
        description: 'the dependencies keeping the App from syncing, and why; empty when none',
      }),
      held_at: Nullable(ref(AppHeldAt), {
        description: 'a held rollback (revision, who, why, when) until POST .../release; null when none',
      }),
    },
    { additionalProperties: false },
  ),
);

/** The answer of the operation routes: what was requested, with the new operation's id. */
export const OperationResult = component(
  'OperationResult',
  Type.Object(
    {
      message: Type.String(),
      operation_id: Type.String(),
      name: Type.Optional(Type.String()),
      tag: Type.Optional(Type.String()),
      revision: Type.Optional(Type.String()),
      replicas: Type.Optional(Type.Integer()),
      from: Type.Optional(Type.String()),
      to: Type.Optional(Type.String()),
      digest: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
);

/** The answer of release: the revision that was held. */
export const ReleaseResult = component(
  'ReleaseResult',
  Type.Object(
    { message: Type.String(), name: Type.String(), revision: Type.String() },
    { additionalProperties: false },
  ),
);

export const APP_OBJECT_COMPONENTS = [
  AppHeldAt,
  AppImportPending,
  ReleaseResult,
  AppSource,
  AppSyncPolicy,
  AppResourceStatus,
  AppCondition,
  AppOperationState,
  AppBlockedBy,
  App,
  AppStatus,
  OperationResult,
];
