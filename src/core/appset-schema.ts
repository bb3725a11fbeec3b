/**
 * The AppSet custom resource (`cd.svc.space/v1alpha1`, kind `AppSet`, issue 27 item 1): a template of an App and the
 * generators whose parameter sets fill it, one App per set (Argo CD's ApplicationSet, with its generator and
 * parameter names: docs/compatibility.md "Fleets"). The schema is the CRD's (./crd.ts); the rules between fields a
 * structural schema cannot state (exactly one kind per generator, two children for matrix and merge, placeholders a
 * generator provides) are in ./appset-rules.ts.
 */
import { type Static, Type } from 'typebox';
import type { APP_API_VERSION, APPSET_KIND } from './app-names.ts';
import { AppSpecSchema, type ObjectMeta } from './app-schema.ts';

const closed = { additionalProperties: false } as const;
const StringMap = (description: string) => Type.Record(Type.String(), Type.String(), { description });

/** Most parameter sets (and so generated Apps) of one AppSet. */
export const MAX_GENERATED = 5_000;

export const APPSET_SYNC_POLICIES = ['create-only', 'create-update', 'sync'] as const;
export type AppSetSyncPolicy = (typeof APPSET_SYNC_POLICIES)[number];

const Selector = Type.Object(
  { matchLabels: Type.Optional(StringMap('Labels a cluster must carry, each with this value.')) },
  { ...closed, description: 'Which registered clusters: every one when empty.' },
);

const GitLocation = {
  repoURL: Type.String({ minLength: 1, maxLength: 2048, description: 'URL of the Git repository read.' }),
  revision: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, default: 'main', description: 'Branch read (default main).' }),
  ),
  repositoryRef: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 63,
      description: "A registered repository of the AppSet's org whose credentials reach repoURL.",
    }),
  ),
};

/** The generators that stand alone (matrix and merge combine two of these). */
export const LeafGeneratorSchema = Type.Object(
  {
    list: Type.Optional(
      Type.Object(
        {
          elements: Type.Array(StringMap('One parameter set.'), {
            maxItems: MAX_GENERATED,
            description: 'The parameter sets, one App each.',
          }),
        },
        { ...closed, description: 'Literal parameter sets.' },
      ),
    ),
    clusters: Type.Optional(
      Type.Object(
        {
          selector: Type.Optional(Selector),
          includeManagement: Type.Optional(
            Type.Boolean({
              default: false,
              description: 'Also the management cluster (name empty, no labels) when the selector is empty.',
            }),
          ),
        },
        {
          ...closed,
          description:
            'One set per registered cluster of the org the selector picks: name, nameNormalized, metadata.labels.<key>.',
        },
      ),
    ),
    gitDirectories: Type.Optional(
      Type.Object(
        {
          ...GitLocation,
          directories: Type.Array(
            Type.Object(
              {
                path: Type.String({ minLength: 1, maxLength: 1024, description: 'A path or glob (`apps/*`).' }),
                exclude: Type.Optional(Type.Boolean({ description: 'Directories matching it are left out.' })),
              },
              closed,
            ),
            { minItems: 1, maxItems: 64, description: 'Directory paths or globs to include or exclude.' },
          ),
        },
        {
          ...closed,
          description: 'One set per matching directory: path, path.basename, path.basenameNormalized, path[n].',
        },
      ),
    ),
    gitFiles: Type.Optional(
      Type.Object(
        {
          ...GitLocation,
          files: Type.Array(
            Type.Object(
              { path: Type.String({ minLength: 1, maxLength: 1024, description: 'A JSON or YAML file, or a glob.' }) },
              closed,
            ),
            { minItems: 1, maxItems: 64, description: 'Files whose values are parameter sets.' },
          ),
        },
        {
          ...closed,
          description:
            "One set per matching file (a file holding a list gives one per element): its values flattened (a.b, list[0]), the directory's path parameters, path.filename.",
        },
      ),
    ),
  },
  { ...closed, description: 'Exactly one of list, clusters, gitDirectories, gitFiles.' },
);

const Children = Type.Array(LeafGeneratorSchema, {
  minItems: 2,
  maxItems: 2,
  description: 'The two generators combined.',
});

export const GeneratorSchema = Type.Object(
  {
    ...LeafGeneratorSchema.properties,
    matrix: Type.Optional(
      Type.Object(
        { generators: Children },
        { ...closed, description: 'Every pair of a set of the first and a set of the second.' },
      ),
    ),
    merge: Type.Optional(
      Type.Object(
        {
          mergeKeys: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
            minItems: 1,
            maxItems: 8,
            description: 'Keys whose values match a set of the second generator to one of the first.',
          }),
          generators: Children,
        },
        {
          ...closed,
          description: "The first generator's sets, each overlaid with the second's set of equal mergeKeys values.",
        },
      ),
    ),
  },
  { ...closed, description: 'Exactly one of list, clusters, gitDirectories, gitFiles, matrix, merge.' },
);

/** The App spec a template may give: an App's, without an operation (operations are asked for per App). */
const { operation: _operation, ...templateSpec } = AppSpecSchema.properties;

export const AppTemplateSchema = Type.Object(
  {
    metadata: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 253, description: 'Name of each App, e.g. `{{ name }}-web`.' }),
        labels: Type.Optional(StringMap('Labels of each App (rollingSync steps select on them).')),
      },
      { ...closed, description: 'Name and labels of each generated App.' },
    ),
    spec: Type.Object(templateSpec, { ...closed, description: 'The spec of each App.' }),
  },
  {
    ...closed,
    description: 'The App every parameter set stamps out; `{{ key }}` in a string value is filled from the set.',
  },
);

/** What an AppSet may do to the Apps it generated. */
export const AppSetSyncPolicySchema = Type.Object(
  {
    applicationsSync: Type.Optional(
      Type.Unsafe<AppSetSyncPolicy>(
        Type.String({
          enum: [...APPSET_SYNC_POLICIES],
          default: 'sync',
          description:
            'create-only: create missing Apps, never change or delete one; create-update: also update them; sync (default): also delete Apps no longer generated.',
        }),
      ),
    ),
    preserveResourcesOnDeletion: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'When a generated App is deleted (the AppSet deleted, or sync dropping it), leave what it deployed in place.',
      }),
    ),
  },
  { ...closed, description: 'What the AppSet may do to the Apps it generated.' },
);

export const ROLLOUT_OPERATORS = ['In', 'NotIn'] as const;
export type RolloutOperator = (typeof ROLLOUT_OPERATORS)[number];

/** One label requirement of a rollingSync step (Argo CD's matchExpressions, In and NotIn). */
export const RolloutExpressionSchema = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 317, description: 'A label key of the generated Apps.' }),
    operator: Type.Unsafe<RolloutOperator>(
      Type.String({
        enum: [...ROLLOUT_OPERATORS],
        description: 'In: the label is one of values; NotIn: it is absent or none of values.',
      }),
    ),
    values: Type.Array(Type.String({ maxLength: 63 }), { minItems: 1, maxItems: 64, description: 'Label values.' }),
  },
  { ...closed, description: 'A label requirement.' },
);

/** One step of a rolling sync: the Apps it selects and how many may be unavailable at once. */
export const RolloutStepSchema = Type.Object(
  {
    matchExpressions: Type.Array(RolloutExpressionSchema, {
      minItems: 1,
      maxItems: 16,
      description: 'An App is in the first step whose every expression it matches.',
    }),
    maxUnavailable: Type.Optional(
      Type.Unsafe<number | string>({
        'x-kubernetes-int-or-string': true,
        description:
          'How many Apps of the step sync at once: a count (at least 1) or a percent of the step (e.g. 25%, at least 1 App); every App of the step when absent.',
      }),
    ),
  },
  { ...closed, description: 'A step of the rolling sync.' },
);

/** How the AppSet rolls a new revision across its Apps. */
export const AppSetStrategySchema = Type.Object(
  {
    rollingSync: Type.Object(
      {
        steps: Type.Array(RolloutStepSchema, {
          minItems: 1,
          maxItems: 16,
          description: 'The steps, in order; Apps no step selects form a last step.',
        }),
      },
      {
        ...closed,
        description:
          'Sync the generated Apps step by step: the AppSet controller syncs them (their own automated sync is off); a step starts when every App of the previous one is Synced and Healthy at its newest revision; a Degraded App stops the rollout.',
      },
    ),
  },
  { ...closed, description: 'How the AppSet syncs its Apps.' },
);

export const AppSetSpecSchema = Type.Object(
  {
    generators: Type.Array(GeneratorSchema, {
      minItems: 1,
      maxItems: 8,
      description: 'The generators; the Apps of all of them are generated (a name made twice is an error).',
    }),
    template: AppTemplateSchema,
    syncPolicy: Type.Optional(AppSetSyncPolicySchema),
    strategy: Type.Optional(AppSetStrategySchema),
  },
  { ...closed, description: 'Generators and the App template.' },
);

export const ROLLOUT_STEP_STATES = ['Pending', 'Progressing', 'Done', 'Stopped'] as const;
export type RolloutStepState = (typeof ROLLOUT_STEP_STATES)[number];

/** Where a rolling sync is (written by the operator). */
export const RolloutStatusSchema = Type.Object(
  {
    currentStep: Type.Integer({
      minimum: 0,
      description: 'The step being synced or stopped at (1-based); 0 when every step is done.',
    }),
    steps: Type.Array(
      Type.Object(
        {
          step: Type.Integer({ minimum: 1, description: '1-based; the last one may be the Apps no step selects.' }),
          state: Type.Unsafe<RolloutStepState>(
            Type.String({ enum: [...ROLLOUT_STEP_STATES], description: 'Pending, Progressing, Done or Stopped.' }),
          ),
          apps: Type.Array(Type.String(), { description: 'The Apps of the step, by name.' }),
          unmatched: Type.Optional(Type.Boolean({ description: 'True for the step of the Apps no step selects.' })),
        },
        closed,
      ),
      { description: 'Each step and its state.' },
    ),
    stopped: Type.Optional(
      Type.Object(
        {
          step: Type.Integer({ minimum: 1, description: 'The step the rollout stopped at.' }),
          app: Type.String({ description: 'The App that stopped it.' }),
          reason: Type.String({ description: 'Why, e.g. Degraded: apps/Deployment web: 0/1 ready.' }),
        },
        closed,
      ),
    ),
  },
  { ...closed, description: 'The rolling sync (spec.strategy.rollingSync): the current step, each step, a stop.' },
);

export const AppSetStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(Type.Integer({ format: 'int64', description: 'metadata.generation handled.' })),
    apps: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ description: 'Name of a generated App.' }),
            namespace: Type.Optional(Type.String({ description: 'Its destination namespace.' })),
            syncStatus: Type.Optional(Type.String({ description: 'Its sync status, as last seen.' })),
            healthStatus: Type.Optional(Type.String({ description: 'Its health, as last seen.' })),
          },
          closed,
        ),
        { description: 'The Apps the AppSet generated, by name.' },
      ),
    ),
    rollout: Type.Optional(RolloutStatusSchema),
    errors: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: 100,
        description: 'What could not be generated: a generator that failed, a parameter set that broke the template.',
      }),
    ),
  },
  { ...closed, description: 'What the operator generated, written only by the operator.' },
);

export type Generator = Static<typeof GeneratorSchema>;
export type LeafGenerator = Static<typeof LeafGeneratorSchema>;
export type AppTemplate = Static<typeof AppTemplateSchema>;
export type AppSetSpec = Static<typeof AppSetSpecSchema>;
export type AppSetStatus = Static<typeof AppSetStatusSchema>;
export type RolloutStep = Static<typeof RolloutStepSchema>;
export type RolloutStatus = Static<typeof RolloutStatusSchema>;

/** An AppSet resource as stored on the management cluster. */
export interface AppSetResource {
  apiVersion: typeof APP_API_VERSION;
  kind: typeof APPSET_KIND;
  metadata: ObjectMeta;
  spec: AppSetSpec;
  status?: AppSetStatus;
}
