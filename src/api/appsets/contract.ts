/**
 * The contract of /appsets (issue 27 item 1; docs/api.md "AppSets"): an AppSet's generators, template and sync
 * policy in the resource's own shape (src/core/appset-schema.ts, Argo CD's names), and what the operator generated.
 * Reads need `deployment:read` in the org, writes `deployment:manage` in the org (an AppSet makes Apps in any
 * destination its generators reach).
 */
import { type TSchema, Type } from 'typebox';
import {
  AppSetStrategySchema,
  AppSetSyncPolicySchema,
  AppTemplateSchema,
  GeneratorSchema,
  ROLLOUT_STEP_STATES,
} from '../../core/appset-schema.ts';
import { errors } from '../contract/errors.ts';
import { component, DnsLabel, Nullable, ref, StringEnum, Timestamp, withoutDefaults } from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;

/**
 * A resource schema as the document states it: without defaults (the API shows what is stored) and without the
 * CRD-only `x-kubernetes-*` keywords (a HelmChart source's free-form `values`), which the validator does not know.
 */
function documented<T extends TSchema>(schema: T): T {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !key.startsWith('x-kubernetes-'))
        .map(([key, v]) => [key, strip(v)]),
    );
  };
  return strip(withoutDefaults(schema)) as T;
}

export const AppSetGenerator = component('AppSetGenerator', documented(GeneratorSchema));
export const AppSetTemplate = component('AppSetTemplate', documented(AppTemplateSchema));
export const AppSetSyncPolicy = component('AppSetSyncPolicy', documented(AppSetSyncPolicySchema));
/** maxUnavailable (int or string) is any value in the document; a bad one is 422 naming the field. */
export const AppSetStrategy = component('AppSetStrategy', documented(AppSetStrategySchema));

/** Where a rolling sync is (status.rollout of the resource, in the API's case). */
export const AppSetRollout = component(
  'AppSetRollout',
  Type.Object(
    {
      current_step: Type.Integer({
        description: 'the step being synced or stopped at (1-based); 0 when every step is done',
      }),
      steps: Type.Array(
        Type.Object(
          {
            step: Type.Integer({ description: '1-based' }),
            state: StringEnum(ROLLOUT_STEP_STATES, { description: 'Pending, Progressing, Done or Stopped' }),
            apps: Type.Array(Type.String(), { description: 'the Apps of the step' }),
            unmatched: Type.Boolean({ description: 'true for the last step of the Apps no step selects' }),
          },
          closed,
        ),
      ),
      stopped: Nullable(Type.Object({ step: Type.Integer(), app: Type.String(), reason: Type.String() }, closed), {
        description: 'why the rollout stopped (a Degraded App), or null',
      }),
    },
    closed,
  ),
);

const specFields = {
  generators: Type.Array(ref(AppSetGenerator), {
    minItems: 1,
    maxItems: 8,
    description: 'the generators; every one of their parameter sets makes one App',
  }),
  template: ref(AppSetTemplate),
  sync_policy: Type.Optional(ref(AppSetSyncPolicy)),
  strategy: Type.Optional(ref(AppSetStrategy)),
};

export const AppSet = component(
  'AppSet',
  Type.Object(
    {
      name: Type.String(),
      ...specFields,
      sync_policy: ref(AppSetSyncPolicy),
      apps: Type.Array(
        Type.Object(
          {
            name: Type.String(),
            namespace: Type.String({ description: 'its destination namespace (GET /apps/{namespace}/{name})' }),
            sync_status: Type.String({ description: 'as last seen; empty before the first reconcile' }),
            health: Type.String({ description: 'as last seen; empty before the first reconcile' }),
          },
          closed,
        ),
        { description: 'the Apps the AppSet generated (read-only through /apps except for operations)' },
      ),
      errors: Type.Array(Type.String(), {
        description: 'what could not be generated: a generator that could not be read, a set that broke the template',
      }),
      rollout: Nullable(ref(AppSetRollout), {
        description: 'where the rolling sync is (strategy.rollingSync); null without one or before the first run',
      }),
      generated: Type.Boolean({ description: 'true once the operator handled the current spec' }),
      created_at: Timestamp(),
    },
    closed,
  ),
);

export const AppSetRequest = component(
  'AppSetRequest',
  Type.Object(
    { name: DnsLabel('unique in the org; the label cd.svc.space/appset of its Apps'), ...specFields },
    closed,
  ),
);

export const AppSetUpdate = component('AppSetUpdate', Type.Object(specFields, closed));

const tags = ['appsets'];
const NameParams = Type.Object({ name: DnsLabel('AppSet name') });
const NOT_FOUND = { 404: 'no such AppSet in this organization' };
const RULES = {
  422: 'a generator with other than one kind, a template placeholder some generator cannot provide, or a rollingSync maxUnavailable that is not a count or a percent (naming the field)',
};

export const listAppSetsRoute = {
  tags,
  summary: 'AppSets of the caller org (deployment:read in the org)',
  response: { 200: Type.Object({ appsets: Type.Array(ref(AppSet)) }, closed), ...errors() },
};
export const getAppSetRoute = {
  tags,
  summary: 'One AppSet with the Apps it generated and its errors (deployment:read in the org)',
  params: NameParams,
  response: { 200: ref(AppSet), ...errors(NOT_FOUND) },
};
export const createAppSetRoute = {
  tags,
  summary: 'Create an AppSet (deployment:manage in the org; audited appset.create); the operator generates its Apps',
  body: ref(AppSetRequest),
  response: { 201: ref(AppSet), ...errors({ 409: 'an AppSet of that name exists' }, RULES) },
};
export const updateAppSetRoute = {
  tags,
  summary:
    'Replace an AppSet’s generators, template, sync policy and strategy (deployment:manage in the org; audited appset.update)',
  params: NameParams,
  body: ref(AppSetUpdate),
  response: { 200: ref(AppSet), ...errors(NOT_FOUND, { 409: 'changed concurrently; retry' }, RULES) },
};
export const deleteAppSetRoute = {
  tags,
  summary:
    'Delete an AppSet (deployment:manage in the org; audited appset.delete); its Apps are deleted with it (what they deployed too, unless preserveResourcesOnDeletion)',
  params: NameParams,
  response: {
    200: Type.Object({ deleted: Type.Literal(true), name: Type.String() }, closed),
    ...errors(NOT_FOUND),
  },
};

export const APPSET_COMPONENTS = [
  AppSetGenerator,
  AppSetTemplate,
  AppSetSyncPolicy,
  AppSetStrategy,
  AppSetRollout,
  AppSet,
  AppSetRequest,
  AppSetUpdate,
];
