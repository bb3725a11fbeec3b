/**
 * The create payload of an App (contract §4.2 "Create fields"), used by POST /apps and /apps/preview. Each field has
 * the rule the API enforces on it: DNS-1123 names; a deployable source (Git, Image or HelmChart; Catalog cannot
 * be deployed yet) with exactly its own block; the Git fields that reach git, kustomize and helm command lines in
 * the form src/core/git-source-args.ts allows, restricted to printable ASCII; image repositories, tags and digests
 * as the distribution spec writes them (src/core/image-ref.ts).
 *
 * Rules a schema cannot state answer 422, as the field descriptions say: an env entry sets exactly one of value,
 * secretRef or store; an enabled ingress names its host; autoscaling.min does not exceed max; helm.inlineValues keys
 * are value paths; every notification URL passes the outbound address policy (SVC_OUTBOUND_SCOPE); every CEL health
 * check compiles.
 */
import { type TProperties, type TSchema, Type } from 'typebox';
import {
  DecryptionSchema,
  EnvVarSchema,
  HealthSpecSchema,
  IgnoreDifferenceSchema,
  ImageSourceSchema,
  MANIFEST_TYPES,
  MAX_DEPENDENCIES,
  MAX_IGNORE_RULES,
  NotificationsSchema,
  SyncPolicySchema,
  TAG_POLICIES,
  WebhookSchema,
  WorkloadSchema,
} from '../../core/app-schema.ts';
import { ClusterName, component, DnsLabel, HOST_LABEL, PORT, StringEnum, withoutDefaults } from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;

/** A relative path or file name that no tool reads as an option: no leading `-`, no control character. */
const SafePath = (description: string) =>
  Type.String({ maxLength: 1024, pattern: '^([^-\\u0000-\\u001f][^\\u0000-\\u001f]*)?$', description });

/**
 * A remote repository URL: `http(s)://`, `ssh://`, `git://` or scp-like `user@host:path`, never `file://`, never a
 * user or host starting with `-` (src/core/app-state.ts repoURLProblem), printable ASCII.
 */
const RepoURL = Type.String({
  minLength: 1,
  maxLength: 2048,
  pattern:
    '^(https?|ssh|git)://([!-,.0-?A-~][!-.0-?A-~]*@)?[!-,.0-?A-~][!-.0-?A-~]*(/[!-~]*)?$|^[A-Za-z0-9_][A-Za-z0-9_.-]*@[A-Za-z0-9_][A-Za-z0-9_.-]*:[!-~]+$',
  description: 'URL of the Git repository (http(s)://, ssh://, git:// or user@host:path; file:// is refused)',
});

/** A registered repository whose credentials reach the source; its URL must cover the source's (422 otherwise). */
const RepositoryRef = DnsLabel(
  'a registered repository (GET /repositories) whose credentials reach repoURL; default the org repository with the longest URL covering it',
);

const GitHelm = Type.Object(
  {
    valuesFile: Type.Optional(SafePath('values file passed to `helm template`, relative to the source path')),
    releaseName: Type.Optional(
      Type.String({
        maxLength: 53,
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
        description: 'Helm release name (DNS-1123 subdomain, at most 53); defaults to the App name',
      }),
    ),
    namespace: Type.Optional(DnsLabel('namespace the chart is rendered for; defaults to the destination namespace')),
    inlineValues: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'values passed as `--set-string key=value`; keys are Helm value paths (letters, digits, _ . [ ] -; 422 otherwise)',
      }),
    ),
  },
  { ...closed, description: 'Helm rendering options (used when the source path holds a chart)' },
);

const GitKustomize = Type.Object(
  {
    images: Type.Optional(
      Type.Array(
        Type.String({
          pattern: `^[!-,.-<>-~][!-<>-~]*(=[!-,.-<>-~][!-<>-~]*)?$`,
          maxLength: 512,
          description: 'name, name=newName[:tag], name:tag or name@digest; no leading -',
        }),
      ),
    ),
    namePrefix: Type.Optional(Type.String({ pattern: '^[a-z0-9][-a-z0-9.]*$', maxLength: 253 })),
    components: Type.Optional(Type.Array(SafePath('a kustomize component, relative to the source path'))),
  },
  { ...closed, description: 'Kustomize rendering options (used when the source path holds a kustomization)' },
);

export const GitRequest = Type.Object(
  {
    repoURL: RepoURL,
    branch: Type.Optional(
      Type.String({
        default: 'main',
        minLength: 1,
        maxLength: 255,
        pattern: '^[A-Za-z0-9_.][A-Za-z0-9_./+@-]*$',
        description: 'branch whose head is deployed (letters, digits, . _ / + @ -; not starting with -)',
      }),
    ),
    path: Type.Optional(SafePath('directory of the manifests inside the repository (default .)')),
    manifestType: Type.Optional(StringEnum(MANIFEST_TYPES, { default: 'Auto' })),
    helm: Type.Optional(GitHelm),
    kustomize: Type.Optional(GitKustomize),
    substitution: Type.Optional(Type.Record(Type.String(), Type.String())),
    decryption: Type.Optional(DecryptionSchema),
    repositoryRef: Type.Optional(RepositoryRef),
  },
  { ...closed, description: 'manifests from a Git repository' },
);

/** HelmChart: a chart from an HTTP(S) Helm repository or an OCI registry (src/core/helm-chart.ts). */
export const HelmChartRequest = Type.Object(
  {
    repoURL: Type.String({
      minLength: 1,
      maxLength: 2048,
      pattern: '^([Hh][Tt][Tt][Pp][Ss]?|[Oo][Cc][Ii])://[!-.0-?A-~]+(/[!-~]*)?$',
      description:
        'chart repository: an http(s):// Helm repository (its index.yaml) or an oci:// registry path; no credentials, query or fragment (422 otherwise)',
    }),
    chart: Type.String({ maxLength: 250, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'chart name' }),
    version: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          'an exact version or a semver range (1.2.x, ^1.2.0, >=1.0 <2; 422 otherwise); the newest match is deployed. Default * (the newest release)',
      }),
    ),
    values: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'values passed to the chart' })),
    valuesFiles: Type.Optional(
      Type.Array(SafePath('a values file inside the chart (relative, no .., 422 otherwise)'), { maxItems: 32 }),
    ),
    releaseName: GitHelm.properties.releaseName,
    namespace: GitHelm.properties.namespace,
    repositoryRef: Type.Optional(RepositoryRef),
  },
  { ...closed, description: 'a chart from a Helm repository or an OCI registry' },
);

/** Catalog: a template of the org's catalog and its params (src/core/catalog.ts). */
const CatalogRequest = Type.Object(
  {
    template: DnsLabel('a template of the org catalog (GET /catalog; 422 when there is none)'),
    params: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 4096 }), {
        description:
          "the template's params as text, checked against its params_schema (400 with the schema's message: an unknown or missing param, a wrong type or range)",
      }),
    ),
  },
  { ...closed, description: 'an App made from a catalog template' },
);

/** One repository path component (distribution's grammar). */
const COMPONENT = '[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*';
const COMPONENT_NO_DOT = '[a-z0-9]+((_|__|-+)[a-z0-9]+)*';
/** A registry host as a first component: one with a dot or a port, or localhost. */
const HOST = `(localhost(:${PORT})?|${HOST_LABEL}(\\.${HOST_LABEL})+(:${PORT})?|${HOST_LABEL}:${PORT})`;

const Tag = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$|^[a-z0-9]+([.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$',
  description: 'image tag (e.g. 1.4.2) or digest (sha256:…)',
});

/** The image fields of the resource schema, with the API's rules on repository and tag. */
function imageRequest(fields: TProperties, description: string): TSchema {
  const {
    workload: _w,
    ingress,
    autoscaling,
    registryRef: _r,
    repository: _p,
    tag: _t,
    tagPolicy: _tp,
    ...rest
  } = ImageSourceSchema.properties;
  return Type.Object(
    {
      ...rest,
      ...fields,
      tag: Tag,
      tagPolicy: Type.Optional(StringEnum(TAG_POLICIES, { default: 'Pinned' })),
      workload: Type.Optional(
        Type.Object(
          {
            ...WorkloadSchema.properties,
            env: Type.Optional(
              Type.Array(EnvVarSchema, {
                description: 'environment variables; each sets exactly one of value, secretRef, store (422 otherwise)',
              }),
            ),
          },
          { ...closed, description: 'the Deployment and Service rendered for the image' },
        ),
      ),
      ingress: Type.Optional({
        ...ingress,
        description: 'an Ingress; when enabled, host is a DNS name (422 otherwise)',
      } as TSchema),
      autoscaling: Type.Optional({
        ...autoscaling,
        description: 'an autoscaler; min must not exceed max (422 otherwise)',
      } as TSchema),
    },
    { ...closed, description },
  );
}

const ImageRequest = Type.Union([
  imageRequest(
    {
      repository: Type.String({
        maxLength: 255,
        pattern: `^${HOST}/${COMPONENT}(/${COMPONENT})*$|^${COMPONENT}$|^${COMPONENT_NO_DOT}(/${COMPONENT})+$`,
        description: 'image repository, e.g. registry.example.com/team/web or nginx',
      }),
    },
    'a container image from a public or anonymous registry',
  ),
  imageRequest(
    {
      registryRef: DnsLabel('a registered registry (GET /registries); the repository is relative to its host'),
      repository: Type.String({
        maxLength: 255,
        pattern: `^${COMPONENT}(/${COMPONENT})*$`,
        description: 'repository path on the registry, e.g. team/web',
      }),
    },
    'a container image from a registered registry',
  ),
]);

const Source = Type.Union(
  [
    Type.Object({ type: Type.Literal('Git'), git: withoutDefaults(GitRequest) }, closed),
    Type.Object({ type: Type.Literal('Image'), image: withoutDefaults(ImageRequest) }, closed),
    Type.Object({ type: Type.Literal('HelmChart'), helmChart: HelmChartRequest }, closed),
    Type.Object({ type: Type.Literal('Catalog'), catalog: CatalogRequest }, closed),
  ],
  {
    description:
      'what to deploy: type Git with git, type Image with image, type HelmChart with helmChart, or type Catalog with catalog (a template of GET /catalog and its params)',
  },
);

/** Notification URLs: http(s), no credentials, printable ASCII; the outbound policy is checked at create (422). */
const NotificationURL = Type.String({
  maxLength: 2048,
  pattern: '^https?://[!-.0-?A-~]+(/[!-~]*)?$',
  description: 'http(s) URL without credentials; it must pass the outbound address policy (422 otherwise)',
});

function withURL(channel: TSchema, field: 'webhookURL' | 'url'): TSchema {
  const c = channel as TSchema & { properties: TProperties };
  return { ...c, properties: { ...c.properties, [field]: NotificationURL } } as TSchema;
}

const n = NotificationsSchema.properties;
const Notifications = Type.Object(
  {
    chat: Type.Optional(withURL(n.chat, 'webhookURL')),
    slack: Type.Optional(withURL(n.slack, 'webhookURL')),
    msTeams: Type.Optional(withURL(n.msTeams, 'webhookURL')),
    webhook: Type.Optional(withURL(n.webhook, 'url')),
  },
  { ...closed, description: (NotificationsSchema as { description?: string }).description ?? '' },
);

/** The create payload. */
export const AppCreateRequest = component(
  'AppCreateRequest',
  Type.Object(
    {
      name: DnsLabel('App name'),
      namespace: DnsLabel('destination namespace'),
      cluster: Type.Optional(ClusterName('a registered cluster (422 when it is not); empty = the management cluster')),
      source: Source,
      sync_policy: Type.Optional(SyncPolicySchema),
      notifications: Type.Optional(Notifications),
      webhook: Type.Optional(WebhookSchema),
      depends_on: Type.Optional(
        Type.Array(
          Type.Object(
            { name: DnsLabel('name of an App of this org (it may be created later)') },
            { ...closed, description: 'an App this one waits for' },
          ),
          {
            maxItems: MAX_DEPENDENCIES,
            description:
              'Apps of this org that must be Synced and Healthy at their current revision before this App syncs (status.blocked_by says why it waits); a dependency cycle is 422 naming it',
          },
        ),
      ),
      health: Type.Optional(
        Type.Object(HealthSpecSchema.properties, {
          ...closed,
          description:
            'custom health checks in CEL: {checks: [{apiVersion, kind, current, inProgress?, failed?}]}; an expression that does not compile is 422 naming the error',
        }),
      ),
      ignore_differences: Type.Optional(
        Type.Array(IgnoreDifferenceSchema, {
          maxItems: MAX_IGNORE_RULES,
          description:
            'spec.ignoreDifferences: fields another owner keeps (an HPA, a webhook), by JSON pointer or field manager; never drift, never re-applied',
        }),
      ),
    },
    { ...closed, description: 'an App to create (contract §4.2)' },
  ),
);

export const APP_CREATE_COMPONENTS = [AppCreateRequest];
