/**
 * The App custom resource (`cd.svc.space/v1alpha1`, kind `App`): the one schema shared by the API, the operator,
 * the CLI and the UI. From it come the TypeScript types (`Static<...>`), the CRD (`./crd.ts`) and the API's create
 * validation (`./create-request.ts`). Fields, enums and defaults follow contract §2.3–2.5.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

export const APP_GROUP = 'cd.svc.space';
export const APP_VERSION = 'v1alpha1';
export const APP_API_VERSION = `${APP_GROUP}/${APP_VERSION}`;
export const APP_KIND = 'App';
export const APP_PLURAL = 'apps';
export const APP_SINGULAR = 'app';
export const APP_SHORT_NAME = 'app';
/** Label carried by every object the operator applies for an App; its value is the App's name. */
export const MANAGED_LABEL = 'cd.svc.space/app';

/** A string restricted to the given values; rendered as `enum` in JSON Schema and the CRD. */
function StringEnum<const T extends readonly string[]>(values: T, options: { default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>(Type.String({ enum: [...values], ...options }));
}

/** A map of string to string (rendered as `additionalProperties: {type: string}` in the CRD). */
function StringMap() {
  return Type.Record(Type.String(), Type.String());
}

const closed = { additionalProperties: false } as const;

export const SOURCE_TYPES = ['Git', 'Image', 'HelmChart', 'Catalog'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];
export const MANIFEST_TYPES = ['Auto', 'Raw', 'Helm', 'Kustomize'] as const;
export type ManifestType = (typeof MANIFEST_TYPES)[number];
export const TAG_POLICIES = ['Pinned', 'Follow'] as const;
export const SYNC_STATUSES = ['Synced', 'OutOfSync', 'Syncing', 'Unknown'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];
export const HEALTH_STATUSES = ['Healthy', 'Degraded', 'Progressing', 'Missing', 'Unknown'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];
export const OPERATION_KINDS = ['Sync', 'Deploy', 'Rollback', 'Restart', 'Approve'] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];
/** Contract phases plus `Running` (an operation the operator has picked up but not finished). */
export const OPERATION_PHASES = ['Running', 'Succeeded', 'Failed', 'Held'] as const;
export type OperationPhase = (typeof OPERATION_PHASES)[number];
/**
 * Contract conditions (Ready, SyncError) plus `Stalled` (beyond the contract): present, True, while the App's spec
 * cannot work; the operator does not retry until the spec changes (docs/compatibility.md).
 */
export const CONDITION_TYPES = ['Ready', 'SyncError', 'Stalled'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];
export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

const Timestamp = () => Type.String({ format: 'date-time' });

export const HelmOptionsSchema = Type.Object(
  {
    valuesFile: Type.Optional(Type.String()),
    releaseName: Type.Optional(Type.String({ description: 'defaults to the app name' })),
    namespace: Type.Optional(Type.String()),
    inlineValues: Type.Optional(StringMap()),
  },
  closed,
);

export const KustomizeOptionsSchema = Type.Object(
  {
    images: Type.Optional(Type.Array(Type.String({ description: 'newName=newTag' }))),
    namePrefix: Type.Optional(Type.String()),
    components: Type.Optional(Type.Array(Type.String())),
  },
  closed,
);

export const GitSourceSchema = Type.Object(
  {
    repoURL: Type.String({ minLength: 1 }),
    branch: Type.Optional(Type.String({ default: 'main', minLength: 1 })),
    path: Type.Optional(Type.String({ default: '.' })),
    manifestType: Type.Optional(StringEnum(MANIFEST_TYPES, { default: 'Auto' })),
    helm: Type.Optional(HelmOptionsSchema),
    kustomize: Type.Optional(KustomizeOptionsSchema),
    substitution: Type.Optional(StringMap()),
  },
  closed,
);

export const SecretKeyRefSchema = Type.Object({ name: Type.String(), key: Type.String() }, closed);
export const StoreRefSchema = Type.Object({ id: Type.String(), path: Type.String(), key: Type.String() }, closed);

export const EnvVarSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    value: Type.Optional(Type.String()),
    secretRef: Type.Optional(SecretKeyRefSchema),
    store: Type.Optional(StoreRefSchema),
  },
  closed,
);

const ResourceList = () =>
  Type.Object({ cpu: Type.Optional(Type.String()), memory: Type.Optional(Type.String()) }, closed);

export const WorkloadSchema = Type.Object(
  {
    port: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, maximum: 65535, default: 80 })),
    replicas: Type.Optional(Type.Integer({ format: 'int32', minimum: 0, default: 1 })),
    env: Type.Optional(Type.Array(EnvVarSchema)),
    resources: Type.Optional(
      Type.Object(
        { requests: Type.Optional(ResourceList()), limits: Type.Optional(ResourceList()) },
        { ...closed, default: { requests: { cpu: '100m', memory: '128Mi' } } },
      ),
    ),
    probe: Type.Optional(
      Type.Object(
        {
          disabled: Type.Optional(Type.Boolean()),
          path: Type.Optional(Type.String({ description: 'switches to an HTTP GET probe' })),
          initialDelaySeconds: Type.Optional(Type.Integer({ format: 'int32', minimum: 0 })),
          periodSeconds: Type.Optional(Type.Integer({ format: 'int32', minimum: 1 })),
          failureThreshold: Type.Optional(Type.Integer({ format: 'int32', minimum: 1 })),
        },
        closed,
      ),
    ),
  },
  closed,
);

export const ImageSourceSchema = Type.Object(
  {
    registryRef: Type.Optional(Type.String()),
    repository: Type.String({ minLength: 1 }),
    tag: Type.String({ minLength: 1 }),
    tagPolicy: Type.Optional(StringEnum(TAG_POLICIES, { default: 'Pinned' })),
    pullSecretRef: Type.Optional(Type.String()),
    workload: Type.Optional(WorkloadSchema),
    ingress: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean({ default: false })),
          host: Type.Optional(Type.String()),
          tlsSecretRef: Type.Optional(Type.String()),
        },
        closed,
      ),
    ),
    autoscaling: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean({ default: false })),
          min: Type.Optional(Type.Integer({ format: 'int32', minimum: 1 })),
          max: Type.Optional(Type.Integer({ format: 'int32', minimum: 1 })),
          cpuPercent: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, maximum: 100 })),
        },
        closed,
      ),
    ),
  },
  closed,
);

export const HelmChartSourceSchema = Type.Object(
  {
    repoURL: Type.String(),
    chart: Type.String(),
    version: Type.Optional(Type.String()),
    values: Type.Optional(Type.String({ description: 'values YAML' })),
  },
  closed,
);

export const CatalogSourceSchema = Type.Object({ template: Type.String(), params: Type.Optional(StringMap()) }, closed);

export const SourceSchema = Type.Object(
  {
    type: StringEnum(SOURCE_TYPES),
    git: Type.Optional(GitSourceSchema),
    image: Type.Optional(ImageSourceSchema),
    helmChart: Type.Optional(HelmChartSourceSchema),
    catalog: Type.Optional(CatalogSourceSchema),
  },
  closed,
);

export const DestinationSchema = Type.Object(
  {
    namespace: Type.String({ minLength: 1 }),
    cluster: Type.Optional(
      Type.String({ default: '', description: 'registered cluster name; empty = management cluster' }),
    ),
  },
  closed,
);

export const SyncPolicySchema = Type.Object(
  {
    automated: Type.Optional(Type.Boolean({ default: false })),
    prune: Type.Optional(Type.Boolean({ default: false })),
    selfHeal: Type.Optional(Type.Boolean({ default: false })),
    requiresApproval: Type.Optional(Type.Boolean({ default: false })),
  },
  closed,
);

export const NotificationsSchema = Type.Object(
  {
    chat: Type.Optional(
      Type.Object(
        {
          webhookURL: Type.String(),
          onSyncSuccess: Type.Optional(Type.Boolean({ default: false })),
          onSyncFailure: Type.Optional(Type.Boolean({ default: false })),
          onHealthDegraded: Type.Optional(Type.Boolean({ default: false })),
        },
        closed,
      ),
    ),
  },
  closed,
);

export const WebhookSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ default: false })),
    secretRef: Type.Optional(
      Type.String({ description: 'Secret in the App namespace whose key `secret` signs pushes' }),
    ),
  },
  closed,
);

export const OperationSchema = Type.Object(
  {
    kind: StringEnum(OPERATION_KINDS),
    initiatedAt: Timestamp(),
    id: Type.Optional(Type.String()),
    revision: Type.Optional(Type.String()),
    triggeredBy: Type.Optional(Type.String()),
  },
  closed,
);

export const AppSpecSchema = Type.Object(
  {
    source: SourceSchema,
    destination: DestinationSchema,
    syncPolicy: Type.Optional(SyncPolicySchema),
    freeze: Type.Optional(Type.Boolean({ default: false })),
    notifications: Type.Optional(NotificationsSchema),
    webhook: Type.Optional(WebhookSchema),
    operation: Type.Optional(OperationSchema),
  },
  closed,
);

export const OperationStateSchema = Type.Object(
  {
    kind: StringEnum(OPERATION_KINDS),
    initiatedAt: Type.Optional(Timestamp()),
    id: Type.Optional(Type.String()),
    phase: StringEnum(OPERATION_PHASES),
    revision: Type.Optional(Type.String()),
    finishedAt: Type.Optional(Timestamp()),
    message: Type.Optional(Type.String()),
    triggeredBy: Type.Optional(Type.String()),
  },
  closed,
);

export const ResourceStatusSchema = Type.Object(
  {
    apiVersion: Type.String(),
    kind: Type.String(),
    name: Type.String(),
    namespace: Type.Optional(Type.String()),
    syncStatus: StringEnum(SYNC_STATUSES),
    healthStatus: StringEnum(HEALTH_STATUSES),
    message: Type.Optional(Type.String()),
  },
  closed,
);

export const ConditionSchema = Type.Object(
  {
    type: StringEnum(CONDITION_TYPES),
    status: StringEnum(CONDITION_STATUSES),
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    lastTransitionTime: Type.Optional(Timestamp()),
  },
  closed,
);

/**
 * One object of `status.inventory`. `id` is `<namespace>_<name>_<group>_<Kind>` (namespace empty for cluster-scoped
 * objects, group empty for the core group), the identity of an object across API versions; `v` is the version it
 * was applied with, so the object can be addressed again.
 */
export const InventoryEntrySchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      description:
        '<namespace>_<name>_<group>_<Kind>: namespace empty for cluster-scoped objects, group empty for the core group.',
    }),
    v: Type.String({ minLength: 1, description: 'The API version the object was applied with (e.g. v1).' }),
  },
  closed,
);

export const AppStatusSchema = Type.Object(
  {
    syncStatus: Type.Optional(StringEnum(SYNC_STATUSES)),
    healthStatus: Type.Optional(StringEnum(HEALTH_STATUSES)),
    healthReason: Type.Optional(Type.String()),
    lastSyncAt: Type.Optional(Timestamp()),
    revision: Type.Optional(Type.String()),
    observedRevision: Type.Optional(Type.String()),
    previousRevisions: Type.Optional(Type.Array(Type.String())),
    objectHash: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
    operationState: Type.Optional(OperationStateSchema),
    resources: Type.Optional(Type.Array(ResourceStatusSchema)),
    conditions: Type.Optional(Type.Array(ConditionSchema)),
    /** Beyond the contract: the generation the operator last reconciled. */
    observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
    /**
     * Beyond the contract, superseded by `inventory`: every `apiVersion/Kind` the App applied, as written by releases
     * before the inventory. Read once to build the inventory, then removed.
     */
    appliedKinds: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Deprecated: every apiVersion/Kind the App applied, from releases before status.inventory. Read once to build the inventory, then removed.',
      }),
    ),
    /** Beyond the contract: every object the App applied and still owns; prune and cascade deletion act on it. */
    inventory: Type.Optional(
      Type.Array(InventoryEntrySchema, {
        description:
          'Every object the App applied and still owns (the applied set of the last sync plus objects not pruned yet), sorted by id. Prune deletes what left the rendered set; deleting the App deletes all of it.',
      }),
    ),
  },
  closed,
);

export type AppSpec = Static<typeof AppSpecSchema>;
export type AppStatus = Static<typeof AppStatusSchema>;
export type AppSource = Static<typeof SourceSchema>;
export type GitSource = Static<typeof GitSourceSchema>;
export type ImageSource = Static<typeof ImageSourceSchema>;
export type SyncPolicy = Static<typeof SyncPolicySchema>;
export type Operation = Static<typeof OperationSchema>;
export type OperationState = Static<typeof OperationStateSchema>;
export type ResourceStatus = Static<typeof ResourceStatusSchema>;
export type Condition = Static<typeof ConditionSchema>;
export type InventoryEntry = Static<typeof InventoryEntrySchema>;

/** Kubernetes object metadata, as much of it as svc reads or writes. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
}

/** An App resource as stored on the management cluster. */
export interface AppResource {
  apiVersion: typeof APP_API_VERSION;
  kind: typeof APP_KIND;
  metadata: ObjectMeta;
  spec: AppSpec;
  status?: AppStatus;
}

/** Every schema of the App, for tooling that walks them (the CRD generator, OpenAPI). */
export const APP_SCHEMAS: Record<string, TSchema> = { spec: AppSpecSchema, status: AppStatusSchema };
