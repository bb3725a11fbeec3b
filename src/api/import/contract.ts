/**
 * The contract of POST /import (docs/migrate.md, docs/api.md "Import"; issue 28): Argo CD and Flux objects as YAML
 * text in, or read from a cluster (`from`); per object the svc App, repository or registry it becomes, or why not, field by field, and a summary.
 * Dry-run unless `apply` is true. Credentials found in Secrets are never answered (only `has_…` flags).
 */
import { Type } from 'typebox';
import { AppCreateRequest } from '../apps/create-contract.ts';
import { AppSetRequest } from '../appsets/contract.ts';
import { errors } from '../contract/errors.ts';
import { ClusterName, component, DnsLabel, ref, StringEnum } from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;

/** Longest `documents` text accepted, in characters. */
export const MAX_IMPORT_TEXT = 1_000_000;

/**
 * The import route's body limit: room for the longest `documents` JSON can spell, every character escaped as
 * `\uXXXX` (6 bytes: 6,000,000 for MAX_IMPORT_TEXT), and the rest of the body. Above the server's 1 MiB so that
 * any text the schema accepts is read and judged by the schema (400 past MAX_IMPORT_TEXT), never refused as too
 * large first (the API fuzzer's negative case of 1,000,001 escaped characters was a 413 before).
 */
export const IMPORT_BODY_LIMIT_BYTES = 6 * 1024 * 1024;

const SvcRef = Type.Object(
  { kind: StringEnum(['App', 'AppSet', 'Repository', 'Registry'] as const), name: Type.String() },
  { ...closed, description: 'an svc object of the import' },
);

export const ImportFieldNote = component(
  'ImportFieldNote',
  Type.Object(
    {
      field: Type.String({ description: 'path in the imported object, e.g. spec.source.helm.valueFiles' }),
      status: StringEnum(['mapped', 'equivalent', 'unsupported'] as const, {
        description:
          'mapped: carried into `to`; equivalent: svc behaves so without a field; unsupported: dropped, svc behaves differently (note says what to do)',
      }),
      to: Type.Optional(Type.String({ description: 'the svc field it went to' })),
      note: Type.Optional(Type.String()),
    },
    closed,
  ),
);

export const ImportedRepository = component(
  'ImportedRepository',
  Type.Object(
    {
      name: Type.String(),
      type: StringEnum(['git', 'helm'] as const),
      url: Type.String(),
      insecure: Type.Optional(Type.Boolean()),
      username: Type.Optional(Type.String()),
      known_hosts: Type.Optional(Type.String()),
      ca: Type.Optional(Type.String()),
      tls_client_cert: Type.Optional(Type.String()),
      has_password: Type.Boolean(),
      has_ssh_private_key: Type.Boolean(),
      has_tls_client_key: Type.Boolean(),
    },
    { ...closed, description: 'a repository to register; its secret parts are never answered, only whether found' },
  ),
);

export const ImportedRegistry = component(
  'ImportedRegistry',
  Type.Object(
    { name: Type.String(), host: Type.String(), username: Type.Optional(Type.String()), has_password: Type.Boolean() },
    { ...closed, description: 'a registry to register; its password is never answered' },
  ),
);

export const ImportEntry = component(
  'ImportEntry',
  Type.Object(
    {
      object: Type.Object(
        {
          apiVersion: Type.String(),
          kind: Type.String(),
          name: Type.String(),
          namespace: Type.Optional(Type.String()),
        },
        { ...closed, description: 'the imported object' },
      ),
      result: StringEnum(['mapped', 'partial', 'unmapped'] as const, {
        description: 'mapped: nothing lost; partial: some fields unsupported (listed); unmapped: no svc object',
      }),
      becomes: Type.Optional(SvcRef),
      app: Type.Optional(ref(AppCreateRequest, { description: 'the App it becomes, as POST /apps takes it' })),
      appset: Type.Optional(
        ref(AppSetRequest, { description: 'the AppSet an ApplicationSet becomes, as POST /appsets takes it' }),
      ),
      repository: Type.Optional(ref(ImportedRepository)),
      registry: Type.Optional(ref(ImportedRegistry)),
      partOf: Type.Optional(Type.Array(SvcRef, { description: 'svc objects that read it (a Flux source, a Secret)' })),
      reason: Type.Optional(Type.String({ description: 'why it cannot be mapped (result unmapped)' })),
      fields: Type.Array(ref(ImportFieldNote)),
      applied: Type.Optional(
        Type.Object(
          {
            status: StringEnum(['created', 'failed'] as const),
            error: Type.Optional(Type.String({ description: 'why it was not created (as its own create route says)' })),
            let_go: Type.Optional(
              Type.Object(
                {
                  status: StringEnum(['done', 'not_performed', 'failed'] as const),
                  note: Type.String({ description: 'what was changed on the old object, or why nothing was' }),
                },
                { ...closed, description: 'for an App: whether the old controller was told to let go' },
              ),
            ),
          },
          { ...closed, description: 'with apply: what became of the svc object' },
        ),
      ),
    },
    closed,
  ),
);

export const ImportReport = component(
  'ImportReport',
  Type.Object(
    {
      applied: Type.Boolean({ description: 'false for a dry-run' }),
      entries: Type.Array(ref(ImportEntry), { description: 'one per imported object, in document order' }),
      summary: Type.Object(
        {
          objects: Type.Integer(),
          mapped: Type.Integer(),
          partial: Type.Integer(),
          unmapped: Type.Integer(),
          apps: Type.Integer(),
          appsets: Type.Integer(),
          repositories: Type.Integer(),
          registries: Type.Integer(),
          created: Type.Integer({ description: 'with apply: svc objects created' }),
          failed: Type.Integer({ description: 'with apply: svc objects that could not be created' }),
        },
        closed,
      ),
      source: Type.Optional(
        Type.Object(
          {
            cluster: Type.String({ description: 'the cluster read ("" = the management cluster)' }),
            namespaces: Type.Array(Type.String(), { description: 'the namespaces read; empty: every namespace' }),
            not_served: Type.Array(Type.String(), {
              description: 'imported kinds the cluster does not serve (their CRD is not installed), as "Kind (group)"',
            }),
            notes: Type.Array(Type.String(), { description: 'reads the credentials were refused' }),
          },
          { ...closed, description: 'with from: what was read' },
        ),
      ),
    },
    closed,
  ),
);

const Apply = Type.Optional(
  Type.Boolean({
    description:
      'create the mapped repositories, registries, Apps and AppSets through their own routes’ rules (permissions, audit); repositories and registries need a session (default false: a dry-run). Apps are created pending (cd.svc.space/import: pending: never prune, orphan on deletion) with a Sync that takes the live objects over, until POST /import/confirm or /import/undo',
  }),
);

const LetGoCluster = Type.Optional(
  Type.String({
    maxLength: 253,
    description:
      "with apply: the cluster the imported Argo CD and Flux objects live in ('' = the management cluster, else a registered cluster's name); svc tells their controllers to let go (Argo CD Application: resources finalizer and automated sync removed; Flux Kustomization/HelmRelease: suspended) and records what it changed for undo. Needs cluster:manage. Absent: let-go is not performed",
  }),
);

export const ImportSource = component(
  'ImportSource',
  Type.Object(
    {
      cluster: ClusterName(
        'a registered cluster (cluster:read on it; read within its namespace allowlist, else in every namespace), or "" for the management cluster (cluster:read in the org; read in the org namespace only)',
      ),
    },
    { ...closed, description: 'where to read the objects from' },
  ),
);

export const ImportRequest = component(
  'ImportRequest',
  Type.Union(
    [
      Type.Object(
        {
          documents: Type.String({
            minLength: 1,
            maxLength: MAX_IMPORT_TEXT,
            description:
              'Argo CD (Application, ApplicationSet, AppProject, repository Secrets) and Flux (GitRepository, OCIRepository, HelmRepository, Kustomization, HelmRelease, ImageRepository, ImagePolicy) objects as YAML documents; 422 when it is not YAML, or a document is not an object',
          }),
          apply: Apply,
          let_go_cluster: LetGoCluster,
        },
        closed,
      ),
      Type.Object(
        {
          from: ref(ImportSource, {
            description:
              'read the objects from a cluster instead: every kind above through discovery, Argo CD repository Secrets by their label, the Secrets Flux sources name',
          }),
          apply: Apply,
          let_go_cluster: LetGoCluster,
        },
        closed,
      ),
    ],
    { description: 'either documents or from, not both' },
  ),
);

export const importRoute = {
  tags: ['import'],
  summary:
    'Map Argo CD and Flux objects (YAML, or read from a cluster: cluster:read there) to svc Apps, repositories and registries (deployment:read); dry-run unless apply, which creates each (its own permission, audited as its own create)',
  body: ref(ImportRequest),
  response: {
    200: ref(ImportReport),
    ...errors({
      413: 'request body over 6 MiB (this route reads up to 1,000,000 characters of YAML, however they are escaped)',
      404: 'from names a cluster not registered in the organization',
      422: 'documents is not YAML, or a document is not an object; the cluster holds more than 5000 objects to import',
      502: 'the cluster answered an error',
      503: 'the cluster cannot be reached, or from is the management cluster and none is configured',
    }),
  },
};

const ImportedAppRef = Type.Object(
  {
    // What the App routes take in their path (AppParams): a name Kubernetes would refuse is the caller's 400 here,
    // never the cluster's 400 answered as a 502.
    namespace: DnsLabel("the App's destination namespace"),
    name: DnsLabel("the App's name"),
  },
  closed,
);

export const ImportConfirmation = component(
  'ImportConfirmation',
  Type.Object(
    {
      name: Type.String(),
      namespace: Type.String(),
      import: StringEnum(['confirmed', 'undone'] as const),
      released: Type.Optional(
        Type.Integer({
          description:
            'confirm: objects of the App whose old field manager (argocd-controller, kustomize-controller, helm-controller) svc removed from managedFields, so svc alone owns their fields',
        }),
      ),
      restored: Type.Optional(
        Type.Object(
          {
            status: StringEnum(['done', 'not_performed', 'failed'] as const),
            note: Type.String(),
          },
          { ...closed, description: "undo: whether the old controller's settings were put back" },
        ),
      ),
    },
    closed,
  ),
);

const NOT_PENDING = 'the App is not a pending import (never imported, or already confirmed)';

export const confirmImportRoute = {
  tags: ['import'],
  summary:
    "Confirm the take-over of an imported App (deployment:manage on it): its import marker is dropped, so it prunes and cascades deletion like any App, and the old controller's field manager is removed from the managedFields of its objects; audited app.import.confirm",
  body: ImportedAppRef,
  response: { 200: ref(ImportConfirmation), ...errors({ 404: 'no such App', 422: NOT_PENDING }) },
};

export const undoImportRoute = {
  tags: ['import'],
  summary:
    "Undo the take-over of an imported App (deployment:manage on it; cluster:manage to put the old controller's settings back): the Argo CD Application's finalizer and automated sync, or the Flux object's suspend, are restored, then the App is deleted leaving every live object in place; audited app.import.undo",
  body: ImportedAppRef,
  response: { 200: ref(ImportConfirmation), ...errors({ 404: 'no such App', 422: NOT_PENDING }) },
};

export const IMPORT_COMPONENTS = [
  ImportConfirmation,
  ImportFieldNote,
  ImportedRepository,
  ImportedRegistry,
  ImportEntry,
  ImportReport,
  ImportSource,
  ImportRequest,
];
