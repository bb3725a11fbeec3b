/**
 * The App custom resource (`cd.svc.space/v1alpha1`, kind `App`): the one schema shared by the API, the operator,
 * the CLI and the UI. From it come the TypeScript types (`Static<...>`), the CRD (`./crd.ts`) and the API's create
 * validation (`./create-request.ts`). Fields, enums and defaults follow contract §2.3–2.5.
 */
import { type Static, type TSchema, Type } from 'typebox';
import {
  type APP_API_VERSION,
  type APP_KIND,
  MAX_OPERATION_RESOURCES,
  SOURCE_TYPES,
  SYNC_PHASES,
} from './app-names.ts';
import { ORG_ROLES } from './permissions.ts';
import { DeliveryWindowSchema } from './windows-schema.ts';

export {
  APP_API_VERSION,
  APP_GROUP,
  APP_KIND,
  APP_PLURAL,
  APP_SHORT_NAME,
  APP_SINGULAR,
  APP_VERSION,
  MANAGED_LABEL,
  MAX_OPERATION_RESOURCES,
  SOURCE_TYPES,
  SYNC_PHASES,
} from './app-names.ts';

/** A string restricted to the given values; rendered as `enum` in JSON Schema and the CRD. */
function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { default?: T[number]; description: string },
) {
  return Type.Unsafe<T[number]>(Type.String({ enum: [...values], ...options }));
}

/** A map of string to string (rendered as `additionalProperties: {type: string}` in the CRD). */
function StringMap(description: string) {
  return Type.Record(Type.String(), Type.String(), { description });
}

const closed = { additionalProperties: false } as const;

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
export const CONDITION_TYPES = ['Ready', 'SyncError', 'Stalled', 'SelfHealPaused'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];
export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

export const HelmOptionsSchema = Type.Object(
  {
    valuesFile: Type.Optional(
      Type.String({ description: 'Values file passed to `helm template`, relative to the source path.' }),
    ),
    releaseName: Type.Optional(Type.String({ description: 'Helm release name; defaults to the App name.' })),
    namespace: Type.Optional(
      Type.String({ description: 'Namespace the chart is rendered for; defaults to the destination namespace.' }),
    ),
    inlineValues: Type.Optional(StringMap('Values passed as `--set-string key=value`, over the values file.')),
  },
  { ...closed, description: 'Helm rendering options (used when the source path holds a chart).' },
);

export const KustomizeOptionsSchema = Type.Object(
  {
    images: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Image overrides as `kustomize edit set image` takes them, e.g. `web=registry.example.com/web:2`.',
      }),
    ),
    namePrefix: Type.Optional(Type.String({ description: 'Prefix added to the name of every rendered object.' })),
    components: Type.Optional(
      Type.Array(Type.String(), { description: 'Kustomize components to include, relative to the source path.' }),
    ),
  },
  { ...closed, description: 'Kustomize rendering options (used when the source path holds a kustomization).' },
);

export const DecryptionSchema = Type.Object(
  {
    storeRef: Type.String({
      minLength: 1,
      maxLength: 63,
      description:
        "Name of a secret store of type sops (provider age) in the App's org; its age identity decrypts the files.",
    }),
  },
  {
    ...closed,
    description:
      'Decrypts SOPS-encrypted YAML and JSON files (Raw manifests, files a kustomization uses) with the real sops binary before rendering; a file that fails to decrypt (wrong key, altered after encryption) fails the sync naming the file.',
  },
);

/** `repositoryRef`: a registered repository of the App's org whose credentials reach the source. */
const RepositoryRef = (what: string) =>
  Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 63,
      description: `Name of a repository registered in the App's org (/api/v1/repositories) whose credentials reach ${what}; its URL must be a prefix of repoURL. Without it, the org's repository with the longest URL prefix of repoURL applies, if any.`,
    }),
  );

export const GitSourceSchema = Type.Object(
  {
    repoURL: Type.String({
      minLength: 1,
      description: 'URL of the Git repository (http(s)://, ssh://, git:// or user@host:path; file:// is refused).',
    }),
    branch: Type.Optional(
      Type.String({ default: 'main', minLength: 1, description: 'Branch whose head is deployed.' }),
    ),
    path: Type.Optional(
      Type.String({ default: '.', description: 'Directory of the manifests inside the repository.' }),
    ),
    manifestType: Type.Optional(
      StringEnum(MANIFEST_TYPES, {
        default: 'Auto',
        description:
          'How the path is rendered. Auto: a kustomization file means Kustomize, a Chart.yaml means Helm, else Raw (.yaml, .yml and .json files).',
      }),
    ),
    helm: Type.Optional(HelmOptionsSchema),
    kustomize: Type.Optional(KustomizeOptionsSchema),
    substitution: Type.Optional(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the description names the literal `${NAME}` syntax.
      StringMap('Variables replacing `${NAME}` in every string of the rendered objects, after rendering.'),
    ),
    decryption: Type.Optional(DecryptionSchema),
    repositoryRef: RepositoryRef('the Git repository'),
  },
  { ...closed, description: 'Manifests from a Git repository (required when type is Git).' },
);

export const SecretKeyRefSchema = Type.Object(
  {
    name: Type.String({ description: 'Name of a Secret in the destination namespace.' }),
    key: Type.String({ description: 'Key inside that Secret.' }),
  },
  { ...closed, description: 'Takes the value from a key of an existing Secret.' },
);
export const StoreRefSchema = Type.Object(
  {
    id: Type.String({ description: 'Id of a registered secret store.' }),
    path: Type.String({ description: 'Path of the secret inside the store.' }),
    key: Type.String({ description: 'Key inside that secret.' }),
  },
  { ...closed, description: 'Takes the value from a registered secret store.' },
);

export const EnvVarSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'Name of the environment variable.' }),
    value: Type.Optional(Type.String({ description: 'Literal value.' })),
    secretRef: Type.Optional(SecretKeyRefSchema),
    store: Type.Optional(StoreRefSchema),
  },
  { ...closed, description: 'One environment variable: a literal value, a Secret key, or a secret-store value.' },
);

const ResourceList = (description: string) =>
  Type.Object(
    {
      cpu: Type.Optional(Type.String({ description: 'CPU quantity, e.g. 100m.' })),
      memory: Type.Optional(Type.String({ description: 'Memory quantity, e.g. 128Mi.' })),
    },
    { ...closed, description },
  );

export const WorkloadSchema = Type.Object(
  {
    port: Type.Optional(
      Type.Integer({ format: 'int32', minimum: 1, maximum: 65535, default: 80, description: 'Container port.' }),
    ),
    replicas: Type.Optional(
      Type.Integer({ format: 'int32', minimum: 0, default: 1, description: 'Number of Pods of the Deployment.' }),
    ),
    env: Type.Optional(Type.Array(EnvVarSchema, { description: 'Environment variables of the container.' })),
    resources: Type.Optional(
      Type.Object(
        {
          requests: Type.Optional(ResourceList('Resources the container requests.')),
          limits: Type.Optional(ResourceList('Resource limits of the container.')),
        },
        {
          ...closed,
          default: { requests: { cpu: '100m', memory: '128Mi' } },
          description: 'Container resources; by default requests of 100m CPU and 128Mi memory.',
        },
      ),
    ),
    probe: Type.Optional(
      Type.Object(
        {
          disabled: Type.Optional(Type.Boolean({ description: 'No readiness or liveness probe.' })),
          path: Type.Optional(Type.String({ description: 'Switches to an HTTP GET probe of this path.' })),
          initialDelaySeconds: Type.Optional(
            Type.Integer({ format: 'int32', minimum: 0, description: 'Seconds before the first probe.' }),
          ),
          periodSeconds: Type.Optional(
            Type.Integer({ format: 'int32', minimum: 1, description: 'Seconds between probes.' }),
          ),
          failureThreshold: Type.Optional(
            Type.Integer({
              format: 'int32',
              minimum: 1,
              description: 'Failed probes before the container counts as failed.',
            }),
          ),
        },
        { ...closed, description: 'Container probe; by default a TCP probe on the port.' },
      ),
    ),
  },
  { ...closed, description: 'The Deployment and Service rendered for the image.' },
);

export const ImageSourceSchema = Type.Object(
  {
    registryRef: Type.Optional(
      Type.String({
        description: 'Name of a registered registry credential; the repository is then relative to its host.',
      }),
    ),
    repository: Type.String({ minLength: 1, description: 'Image repository, e.g. registry.example.com/team/web.' }),
    tag: Type.String({ minLength: 1, description: 'Image tag to deploy.' }),
    tagPolicy: Type.Optional(
      StringEnum(TAG_POLICIES, {
        default: 'Pinned',
        description: 'Pinned: the tag is resolved once per sync. Follow: redeploys when the tag moves to a new digest.',
      }),
    ),
    pullSecretRef: Type.Optional(Type.String({ description: 'Image pull Secret in the destination namespace.' })),
    workload: Type.Optional(WorkloadSchema),
    ingress: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean({ default: false, description: 'Render an Ingress.' })),
          host: Type.Optional(Type.String({ description: 'Host name the Ingress serves.' })),
          tlsSecretRef: Type.Optional(Type.String({ description: 'TLS Secret of the Ingress.' })),
        },
        { ...closed, description: 'Optional Ingress in front of the Service.' },
      ),
    ),
    autoscaling: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean({ default: false, description: 'Render a HorizontalPodAutoscaler.' })),
          min: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, description: 'Fewest replicas.' })),
          max: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, description: 'Most replicas.' })),
          cpuPercent: Type.Optional(
            Type.Integer({ format: 'int32', minimum: 1, maximum: 100, description: 'Target CPU utilisation.' }),
          ),
        },
        { ...closed, description: 'Optional autoscaler; while enabled, scale requests are refused.' },
      ),
    ),
  },
  { ...closed, description: 'A container image deployed as a workload (required when type is Image).' },
);

export const HelmChartSourceSchema = Type.Object(
  {
    repoURL: Type.String({
      minLength: 1,
      description:
        'Chart repository: an http(s):// Helm repository (its index.yaml) or an oci:// registry path holding the chart.',
    }),
    chart: Type.String({ minLength: 1, maxLength: 250, description: 'Chart name.' }),
    version: Type.Optional(
      Type.String({
        default: '*',
        minLength: 1,
        maxLength: 256,
        description:
          'An exact chart version or a semver range (`1.2.x`, `^1.2.0`, `>=1.0 <2`): the newest matching version is deployed, and a new matching version deploys by itself on the next resync. Default `*` (the newest release).',
      }),
    ),
    values: Type.Optional(
      Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        description: 'Values passed to the chart, over its values files.',
      }),
    ),
    valuesFiles: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
        maxItems: 32,
        description: 'Values files of the chart (paths inside it), applied in order before `values`.',
      }),
    ),
    releaseName: Type.Optional(Type.String({ description: 'Helm release name; defaults to the App name.' })),
    namespace: Type.Optional(
      Type.String({ description: 'Namespace the chart is rendered for; defaults to the destination namespace.' }),
    ),
    repositoryRef: RepositoryRef('the chart repository'),
  },
  {
    ...closed,
    description: 'A chart from a Helm chart repository or an OCI registry (required when type is HelmChart).',
  },
);

export const CatalogSourceSchema = Type.Object(
  {
    template: Type.String({ description: 'Name of the catalog template.' }),
    params: Type.Optional(StringMap('Template parameters.')),
  },
  { ...closed, description: 'An App made from a template of the org catalog (GET /api/v1/catalog) and its params.' },
);

export const SourceSchema = Type.Object(
  {
    type: StringEnum(SOURCE_TYPES, { description: 'Kind of source; the block of the same name must be set.' }),
    git: Type.Optional(GitSourceSchema),
    image: Type.Optional(ImageSourceSchema),
    helmChart: Type.Optional(HelmChartSourceSchema),
    catalog: Type.Optional(CatalogSourceSchema),
  },
  { ...closed, description: 'What to deploy.' },
);

export const DestinationSchema = Type.Object(
  {
    namespace: Type.String({ minLength: 1, description: 'Namespace the objects are applied to (created if missing).' }),
    cluster: Type.Optional(
      Type.String({ default: '', description: 'Registered cluster name; empty means the management cluster.' }),
    ),
  },
  { ...closed, description: 'Where to deploy.' },
);

/** Who may approve a held sync, and how many (docs/operator.md "Approval policies"). */
export const ApprovalPolicySchema = Type.Object(
  {
    count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10, description: 'Distinct approvals a held sync needs (default 1).' }),
    ),
    roles: Type.Optional(
      Type.Array(StringEnum(ORG_ROLES, { description: 'an org role' }), {
        maxItems: 8,
        description: 'Org roles whose members may approve (Owner, Admin, Contributor, Viewer).',
      }),
    ),
    teams: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: 32,
        description: 'Teams (by name) whose members may approve.',
      }),
    ),
    users: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 254 }), {
        maxItems: 64,
        description: 'Users (by email or id) who may approve.',
      }),
    ),
    expiry: Type.Optional(
      Type.String({
        pattern: '^([0-9]{1,6}(ms|s|m|h))+$',
        maxLength: 32,
        description: 'How long a held sync waits for its approvals (e.g. 24h); past it the sync is dropped.',
      }),
    ),
  },
  {
    ...closed,
    description:
      'Who may approve a sync held by requiresApproval: anyone with deployment:sync in roles, teams or users (any when all are empty), never the requester; count distinct approvals.',
  },
);

/** Automatic rollback (docs/operator.md "Automatic rollback"); absent = off. */
export const AutoRollbackSchema = Type.Object(
  {
    onDegradedFor: Type.String({
      pattern: '^([0-9]{1,6}(ms|s|m|h))+$',
      maxLength: 32,
      description:
        'How long a newly synced revision may stay Degraded (a Go-style duration, e.g. 5m, 90s) before svc rolls back to the last healthy revision and holds it there until released.',
    }),
  },
  {
    ...closed,
    description:
      "Roll back automatically when a sync's new revision stays Degraded: to the last revision the App was Healthy at, held (status.heldAt) until POST .../release; never twice for one revision, never while frozen or held.",
  },
);

export const SyncPolicySchema = Type.Object(
  {
    automated: Type.Optional(
      Type.Boolean({ default: false, description: 'Sync whenever the upstream revision or the spec changes.' }),
    ),
    prune: Type.Optional(
      Type.Boolean({ default: false, description: 'Delete objects of this App that left the rendered set.' }),
    ),
    selfHeal: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'With automated: re-apply within seconds when a live object drifts (another writer took a field svc applied, or deleted the object); paused after 5 reverts in 10 minutes.',
      }),
    ),
    requiresApproval: Type.Optional(
      Type.Boolean({ default: false, description: 'Hold each sync (phase Held) until it is approved.' }),
    ),
    approval: Type.Optional(ApprovalPolicySchema),
    windows: Type.Optional(
      Type.Array(DeliveryWindowSchema, {
        maxItems: 16,
        description:
          "Delivery windows of this App (with its cluster's and its org's): automated and push-triggered syncs outside an allow window or inside a deny window are held until it opens; a manual sync is refused unless overridden.",
      }),
    ),
    operationTimeout: Type.Optional(
      Type.String({
        pattern: '^([0-9]{1,6}(ms|s|m|h))+$',
        maxLength: 32,
        description:
          'How long a sync may wait for its hooks and waves (e.g. 90s, 15m; default 10m); past it the operation ends Failed, reason DeadlineExceeded, and its running hooks are stopped.',
      }),
    ),
    autoRollback: Type.Optional(AutoRollbackSchema),
  },
  { ...closed, description: 'When and how the App syncs.' },
);

export const NotificationsSchema = Type.Object(
  {
    chat: Type.Optional(
      Type.Object(
        {
          webhookURL: Type.String({ description: 'Incoming chat webhook URL the messages are posted to.' }),
          onSyncSuccess: Type.Optional(Type.Boolean({ default: false, description: 'Post when a sync succeeds.' })),
          onSyncFailure: Type.Optional(Type.Boolean({ default: false, description: 'Post when a sync fails.' })),
          onHealthDegraded: Type.Optional(
            Type.Boolean({ default: false, description: 'Post when the health becomes Degraded.' }),
          ),
        },
        { ...closed, description: 'Chat messages about this App.' },
      ),
    ),
    slack: Type.Optional(
      Type.Object(
        {
          webhookURL: Type.String({
            description:
              'Slack-compatible incoming webhook URL (Slack, Mattermost, Rocket.Chat) for Block Kit messages.',
          }),
          ...channelSwitches(),
        },
        { ...closed, description: 'Slack messages (blocks with a text fallback) about this App.' },
      ),
    ),
    msTeams: Type.Optional(
      Type.Object(
        {
          webhookURL: Type.String({
            description: 'Microsoft Teams incoming webhook URL (a Workflows webhook) the Adaptive Card is posted to.',
          }),
          ...channelSwitches(),
        },
        { ...closed, description: 'Microsoft Teams messages (Adaptive Cards) about this App.' },
      ),
    ),
    webhook: Type.Optional(
      Type.Object(
        {
          url: Type.String({ description: 'URL the notification payload (JSON, docs/notifications.md) is posted to.' }),
          ...channelSwitches(),
        },
        { ...closed, description: 'A generic JSON webhook about this App.' },
      ),
    ),
  },
  {
    ...closed,
    description:
      'Notifications about this App. Every URL is reached under the outbound address policy (SVC_OUTBOUND_SCOPE).',
  },
);

/** The event switches of the notification channels beyond chat (all off by default). */
function channelSwitches() {
  return {
    onSyncSuccess: Type.Optional(Type.Boolean({ default: false, description: 'Post when a sync succeeds.' })),
    onSyncFailure: Type.Optional(Type.Boolean({ default: false, description: 'Post when a sync fails.' })),
    onHealthDegraded: Type.Optional(
      Type.Boolean({ default: false, description: 'Post when the health becomes Degraded.' }),
    ),
    onHealthRecovered: Type.Optional(
      Type.Boolean({ default: false, description: 'Post when the health turns Healthy again after Degraded.' }),
    ),
  };
}

export const WebhookSchema = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({ default: false, description: 'Push events of the source repository sync this App.' }),
    ),
    secretRef: Type.Optional(
      Type.String({ description: 'Secret in the App namespace whose key `secret` signs or carries push events.' }),
    ),
  },
  { ...closed, description: 'Push events (webhooks) of the Git host.' },
);

export const OperationSchema = Type.Object(
  {
    kind: StringEnum(OPERATION_KINDS, { description: 'What to do.' }),
    initiatedAt: Timestamp('When it was requested; a new value means a new request.'),
    id: Type.Optional(Type.String({ description: 'Correlation id, echoed in status.operationState.' })),
    revision: Type.Optional(Type.String({ description: 'Target revision (Rollback, Deploy, Approve).' })),
    triggeredBy: Type.Optional(
      Type.String({ description: 'Who asked: a user id, or webhook:gitA / webhook:gitB for push events.' }),
    ),
    windowOverride: Type.Optional(
      Type.Boolean({
        description:
          'Run this operation even while a delivery window blocks syncs (a deployment:manage caller overriding once; audited).',
      }),
    ),
  },
  { ...closed, description: 'A requested operation; written by the API and the push receiver, run by the operator.' },
);

/** A custom health check in CEL for one kind (Flux's `healthCheckExprs` shape; docs/operator.md "Health"). */
export const HealthCheckSchema = Type.Object(
  {
    apiVersion: Type.String({
      minLength: 1,
      maxLength: 253,
      description: 'apiVersion of the objects the check applies to, exactly as rendered (e.g. example.com/v1).',
    }),
    kind: Type.String({ minLength: 1, maxLength: 63, description: 'Kind of the objects the check applies to.' }),
    current: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'CEL expression over apiVersion, kind, metadata, spec and status: true when the object is Healthy.',
    }),
    inProgress: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'CEL expression: true while the object is Progressing.',
      }),
    ),
    failed: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: 'CEL expression: true when the object is Degraded.' }),
    ),
  },
  { ...closed, description: 'Evaluated in the order inProgress, failed, current; none true is Progressing.' },
);
export type HealthCheck = Static<typeof HealthCheckSchema>;

/** Most custom checks per App (and per org). */
export const MAX_HEALTH_CHECKS = 50;

export const HealthSpecSchema = Type.Object(
  {
    checks: Type.Optional(
      Type.Array(HealthCheckSchema, {
        maxItems: MAX_HEALTH_CHECKS,
        description: "Custom checks; for one apiVersion and kind they replace the built-in check and the org's.",
      }),
    ),
  },
  { ...closed, description: "How the health of the App's objects is assessed." },
);

/** Most dependencies of one App. */
export const MAX_DEPENDENCIES = 32;

/** One App this App waits for (Flux's `dependsOn` shape; docs/operator.md "Dependencies"). */
export const DependencySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 63, description: 'Name of the App waited for.' }),
    namespace: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        description:
          "Namespace of that App resource; defaults to this App's. Dependencies are between Apps of one org: another namespace blocks the App.",
      }),
    ),
  },
  { ...closed, description: 'An App that must be Synced and Healthy at its current revision before this one syncs.' },
);
export type Dependency = Static<typeof DependencySchema>;
/** Most ignoreDifferences rules per App, and pointers or managers per rule. */
export const MAX_IGNORE_RULES = 100;

export const IgnoreDifferenceSchema = Type.Object(
  {
    group: Type.Optional(
      Type.String({
        maxLength: 253,
        description: "API group of the objects; absent or '' is the core group, '*' any.",
      }),
    ),
    kind: Type.String({ minLength: 1, maxLength: 63, description: "Kind of the objects; '*' any." }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'Only the object of this name.' })),
    namespace: Type.Optional(
      Type.String({ minLength: 1, maxLength: 63, description: 'Only objects in this namespace.' }),
    ),
    jsonPointers: Type.Optional(
      Type.Array(Type.String({ pattern: '^/', maxLength: 512 }), {
        maxItems: 50,
        description: 'Fields to ignore, as RFC 6901 JSON pointers (e.g. /spec/replicas).',
      }),
    ),
    managedFieldsManagers: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: 50,
        description: 'Ignore every field these field managers own (e.g. kube-controller-manager for an HPA).',
      }),
    ),
  },
  {
    ...closed,
    description:
      'Fields of matching objects that never count as drift and that a sync does not change (the live value is kept).',
  },
);
export type IgnoreDifference = Static<typeof IgnoreDifferenceSchema>;

export const AppSpecSchema = Type.Object(
  {
    source: SourceSchema,
    destination: DestinationSchema,
    syncPolicy: Type.Optional(SyncPolicySchema),
    freeze: Type.Optional(
      Type.Boolean({ default: false, description: 'Hold every sync and operation; health still updates.' }),
    ),
    notifications: Type.Optional(NotificationsSchema),
    webhook: Type.Optional(WebhookSchema),
    health: Type.Optional(HealthSpecSchema),
    dependsOn: Type.Optional(
      Type.Array(DependencySchema, {
        maxItems: MAX_DEPENDENCIES,
        description:
          'Apps of the same org this App waits for: while one is not Synced and Healthy at its current revision, this App does not sync (status.blockedBy says why). A cycle stalls the Apps in it.',
      }),
    ),
    ignoreDifferences: Type.Optional(
      Type.Array(IgnoreDifferenceSchema, {
        maxItems: MAX_IGNORE_RULES,
        description: 'Fields owned by someone else (an HPA, a mutating webhook): not drift, not re-applied.',
      }),
    ),
    operation: Type.Optional(OperationSchema),
  },
  { ...closed, description: 'The desired state of the App.' },
);

/** What an operation did to one object (`operationState.resources[].result`). */
export const OPERATION_RESOURCE_RESULTS = ['Synced', 'Pruned', 'HookSucceeded', 'HookFailed', 'HookStopped'] as const;

export const OperationResourceSchema = Type.Object(
  {
    apiVersion: Type.String({ description: 'apiVersion of the object.' }),
    kind: Type.String({ description: 'Kind of the object.' }),
    name: Type.String({ description: 'Name of the object.' }),
    namespace: Type.Optional(Type.String({ description: 'Namespace of the object; absent for cluster-scoped kinds.' })),
    result: StringEnum(OPERATION_RESOURCE_RESULTS, {
      description:
        'Synced (applied), Pruned (deleted), or for a hook HookSucceeded, HookFailed or HookStopped (ended by a deadline or terminate).',
    }),
    syncPhase: StringEnum(SYNC_PHASES, { description: 'The phase it ran in: Sync for the App objects and prune.' }),
    wave: Type.Integer({ description: 'The wave it ran in.' }),
    message: Type.Optional(Type.String({ description: 'Why a hook failed or was stopped.' })),
  },
  { ...closed, description: 'What the operation did to one object.' },
);

export const OperationStateSchema = Type.Object(
  {
    kind: StringEnum(OPERATION_KINDS, { description: 'Kind of the operation.' }),
    initiatedAt: Type.Optional(Timestamp('initiatedAt of the operation.')),
    id: Type.Optional(Type.String({ description: 'Id of the operation (spec.operation.id).' })),
    phase: StringEnum(OPERATION_PHASES, { description: 'Running, Succeeded, Failed or Held.' }),
    revision: Type.Optional(Type.String({ description: 'Revision applied, or staged while Held.' })),
    finishedAt: Type.Optional(Timestamp('When the operation ended.')),
    message: Type.Optional(Type.String({ description: 'What happened, or why it is held or failed.' })),
    reason: Type.Optional(
      Type.String({
        description:
          'Why a Failed operation failed, CamelCase: the failing stage (HookFailed, ApplyFailed, …), DeadlineExceeded or Terminated.',
      }),
    ),
    triggeredBy: Type.Optional(Type.String({ description: 'triggeredBy of the operation.' })),
    syncPhase: Type.Optional(
      StringEnum(SYNC_PHASES, {
        description: 'While Running a staged sync (hooks, waves): the phase in progress, PreSync, Sync or PostSync.',
      }),
    ),
    wave: Type.Optional(Type.Integer({ description: 'While Running a staged sync: the wave in progress.' })),
    resources: Type.Optional(
      Type.Array(OperationResourceSchema, {
        maxItems: MAX_OPERATION_RESOURCES,
        description:
          'Once the operation ended: what it did to each object, in order (applied, pruned, hooks run); the first 1,000.',
      }),
    ),
    resourcesOmitted: Type.Optional(
      Type.Integer({ minimum: 1, description: 'How many more objects the operation touched than `resources` lists.' }),
    ),
  },
  { ...closed, description: 'The last operation the operator picked up.' },
);

export const ResourceStatusSchema = Type.Object(
  {
    apiVersion: Type.String({ description: 'apiVersion of the object.' }),
    kind: Type.String({ description: 'Kind of the object.' }),
    name: Type.String({ description: 'Name of the object.' }),
    namespace: Type.Optional(Type.String({ description: 'Namespace of the object; empty for cluster-scoped kinds.' })),
    syncStatus: StringEnum(SYNC_STATUSES, { description: 'Whether the object was applied as rendered.' }),
    healthStatus: StringEnum(HEALTH_STATUSES, { description: 'Health of the object.' }),
    message: Type.Optional(Type.String({ description: 'Why it is not healthy, when it is not.' })),
  },
  { ...closed, description: 'One rendered object.' },
);

export const ConditionSchema = Type.Object(
  {
    type: StringEnum(CONDITION_TYPES, { description: 'Ready, SyncError, Stalled, or SelfHealPaused.' }),
    status: StringEnum(CONDITION_STATUSES, { description: 'True, False or Unknown.' }),
    reason: Type.Optional(Type.String({ description: 'One-word reason, CamelCase.' })),
    message: Type.Optional(Type.String({ description: 'Human-readable details.' })),
    lastTransitionTime: Type.Optional(Timestamp('When status last changed.')),
  },
  { ...closed, description: 'A condition of the App.' },
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
  { ...closed, description: 'An object the App applied and still owns.' },
);

/** Where an applied image digest came from (status.revisionTags). */
export const RevisionTagSchema = Type.Object(
  {
    revision: Type.String({ minLength: 1, description: 'An applied image digest.' }),
    tag: Type.String({ description: 'The tag it was resolved from (or deployed under).' }),
    image: Type.String({ description: 'The image name it was applied as, without tag or digest.' }),
  },
  { ...closed, description: 'The tag and image of an applied image digest.' },
);

/** A held rollback (status.heldAt): the revision the App is pinned at, who pinned it, why and when. */
export const HeldAtSchema = Type.Object(
  {
    revision: Type.String({ description: 'The revision the App stays at until released.' }),
    by: Type.String({ description: 'Who held it (a user, an API key, or system for an automatic rollback).' }),
    reason: Type.String({ description: 'Why (empty when none was given).' }),
    at: Timestamp('When the hold was made.'),
  },
  {
    ...closed,
    description:
      'A held rollback: automated sync and requested syncs keep or apply this revision instead of the head until POST .../release.',
  },
);
export type HeldAt = Static<typeof HeldAtSchema>;

/** One dependency an App waits for, and why (status.blockedBy). */
export const BlockedBySchema = Type.Object(
  {
    app: Type.String({ description: 'Name of the App waited for.' }),
    reason: Type.String({ description: 'Why it is not ready, e.g. `Progressing: apps/Deployment db: 1/3 ready`.' }),
  },
  { ...closed, description: 'A dependency that is not Synced and Healthy at its current revision.' },
);
export type BlockedBy = Static<typeof BlockedBySchema>;

export const AppStatusSchema = Type.Object(
  {
    syncStatus: Type.Optional(
      StringEnum(SYNC_STATUSES, { description: 'Whether the live objects match the rendered source.' }),
    ),
    healthStatus: Type.Optional(StringEnum(HEALTH_STATUSES, { description: 'Worst health of the objects.' })),
    healthReason: Type.Optional(
      Type.String({
        description:
          'Why the health is not Healthy: the resources that made it so (up to three), e.g. apps/Deployment api: 1/3 ready.',
      }),
    ),
    lastSyncAt: Type.Optional(Timestamp('Time of the last successful apply.')),
    revision: Type.Optional(
      Type.String({
        description: 'Last applied revision (commit SHA or image digest); moves only on a successful apply.',
      }),
    ),
    observedRevision: Type.Optional(Type.String({ description: 'Newest revision seen upstream (branch head).' })),
    previousRevisions: Type.Optional(
      Type.Array(Type.String(), { description: 'Earlier applied revisions, newest first (at most 50).' }),
    ),
    objectHash: Type.Optional(Type.String({ description: 'SHA-256 of the last applied rendered set.' })),
    url: Type.Optional(
      Type.String({
        description: 'Public address of an image App whose Ingress is enabled (https with a TLS Secret), else empty.',
      }),
    ),
    /** Beyond the contract: for image sources, the image and tag each applied digest came from. */
    revisionTags: Type.Optional(
      Type.Array(RevisionTagSchema, {
        description:
          'Image sources: the tag and image each revision of the history (revision and previousRevisions) came from, newest first; Rollback writes the tag back and Sync keeps a digest while its tag and image are unchanged.',
      }),
    ),
    operationState: Type.Optional(OperationStateSchema),
    /** Beyond the contract: a held rollback (metadata annotation cd.svc.space/hold, mirrored here). */
    heldAt: Type.Optional(HeldAtSchema),
    /** Beyond the contract: the last revision the App was Healthy at (the target of an automatic rollback). */
    healthyRevision: Type.Optional(
      Type.String({
        description: 'The last applied revision the App was Healthy at (an automatic rollback returns to it).',
      }),
    ),
    /** Beyond the contract: since when the App is Degraded at its applied revision. */
    degradedSince: Type.Optional(
      Timestamp('Since when the App has been Degraded at its applied revision; absent while it is not Degraded.'),
    ),
    /** Beyond the contract: the dependencies (spec.dependsOn) that keep the App from syncing. */
    blockedBy: Type.Optional(
      Type.Array(BlockedBySchema, {
        description:
          'The dependencies (spec.dependsOn) not Synced and Healthy at their current revision: while any is listed the App does not sync (a requested sync is Held). Absent when none.',
      }),
    ),
    resources: Type.Optional(
      Type.Array(ResourceStatusSchema, { description: 'The rendered objects and their state.' }),
    ),
    conditions: Type.Optional(
      Type.Array(ConditionSchema, {
        description:
          'Conditions Ready and SyncError, and Stalled while the spec cannot work (not retried until it changes).',
      }),
    ),
    /** Beyond the contract: the generation the operator last reconciled. */
    observedGeneration: Type.Optional(
      Type.Integer({ format: 'int64', description: 'metadata.generation the operator last reconciled.' }),
    ),
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
  { ...closed, description: 'What the operator observed and did, written only by the operator.' },
);

export type AppSpec = Static<typeof AppSpecSchema>;
export type AppStatus = Static<typeof AppStatusSchema>;
export type AppSource = Static<typeof SourceSchema>;
export type GitSource = Static<typeof GitSourceSchema>;
export type ImageSource = Static<typeof ImageSourceSchema>;
export type HelmChartSource = Static<typeof HelmChartSourceSchema>;
export type SyncPolicy = Static<typeof SyncPolicySchema>;
export type ApprovalPolicy = Static<typeof ApprovalPolicySchema>;
export type Operation = Static<typeof OperationSchema>;
export type OperationState = Static<typeof OperationStateSchema>;
export type OperationResource = Static<typeof OperationResourceSchema>;
export type ResourceStatus = Static<typeof ResourceStatusSchema>;
export type Condition = Static<typeof ConditionSchema>;
export type InventoryEntry = Static<typeof InventoryEntrySchema>;
export type RevisionTag = Static<typeof RevisionTagSchema>;

/** A Kubernetes owner reference (an App generated by an AppSet names it). */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

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
  ownerReferences?: OwnerReference[];
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
