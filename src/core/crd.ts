/**
 * The App CustomResourceDefinition, generated from the TypeBox schemas of ./app-schema.ts so the CRD, the types and
 * the API validation cannot drift. `deploy/crds/apps.cd.svc.space.yaml` is this object as YAML (`npm run generate`);
 * a unit test fails when the checked-in file differs.
 */
import { stringify } from 'yaml';
import { APPSET_KIND, APPSET_PLURAL, APPSET_SINGULAR } from './app-names.ts';
import {
  APP_GROUP,
  APP_KIND,
  APP_PLURAL,
  APP_SHORT_NAME,
  APP_SINGULAR,
  APP_VERSION,
  AppSpecSchema,
  AppStatusSchema,
} from './app-schema.ts';
import { AppSetSpecSchema, AppSetStatusSchema } from './appset-schema.ts';

type JsonSchema = Record<string, unknown>;

/**
 * The CRD's category (`kubectl get svc-cd` lists every svc resource). kubectl resolves categories before short
 * names, so a category must never equal a built-in resource name or short name: the earlier `svc` made
 * `kubectl get svc` list Apps instead of Services. An integration test checks this against a real apiserver.
 */
export const APP_CATEGORY = 'svc-cd';

/**
 * Turns a JSON Schema produced by TypeBox into a Kubernetes structural schema: string-keyed records become
 * `additionalProperties`, closed objects drop `additionalProperties: false` (the apiserver prunes unknown fields
 * instead of rejecting them), and TypeBox's own keys are removed.
 */
export function toStructural(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toStructural);
  if (typeof schema !== 'object' || schema === null) return schema;
  // JSON round-trip drops TypeBox's symbol keys (Kind, Optional).
  const src = JSON.parse(JSON.stringify(schema)) as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(src)) {
    if (key === '$id' || (key === 'additionalProperties' && value === false)) continue;
    if (key === 'patternProperties') {
      const values = Object.values(value as JsonSchema);
      out['additionalProperties'] = toStructural(values[0]);
      continue;
    }
    if (key === 'properties') {
      out[key] = Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, toStructural(v)]));
      continue;
    }
    out[key] = key === 'items' || key === 'additionalProperties' ? toStructural(value) : value;
  }
  return out;
}

/** What differs between svc's CRDs: names, description, printer columns and the spec and status schemas. */
interface CrdDefinition {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  description: string;
  columns: { name: string; type: string; jsonPath: string }[];
  spec: unknown;
  status: unknown;
}

/** A namespaced CRD of svc's group with a status subresource, as a plain object. */
function buildCrd(d: CrdDefinition): JsonSchema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${d.plural}.${APP_GROUP}` },
    spec: {
      group: APP_GROUP,
      scope: 'Namespaced',
      names: {
        kind: d.kind,
        listKind: `${d.kind}List`,
        plural: d.plural,
        singular: d.singular,
        shortNames: d.shortNames,
        categories: [APP_CATEGORY],
      },
      versions: [
        {
          name: APP_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: d.columns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: d.description,
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string', description: `${APP_GROUP}/${APP_VERSION}` },
                kind: { type: 'string', description: d.kind },
                // The apiserver refuses anything beside `type` here (metadata's schema is its own).
                metadata: { type: 'object' },
                spec: toStructural(d.spec),
                status: toStructural(d.status),
              },
            },
          },
        },
      ],
    },
  };
}

const AGE = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** The App CRD as a plain object, ready to apply or serialise. */
export function buildAppCrd(): JsonSchema {
  return buildCrd({
    kind: APP_KIND,
    plural: APP_PLURAL,
    singular: APP_SINGULAR,
    shortNames: [APP_SHORT_NAME],
    description: 'An App deploys one source (Git manifests or a container image) to one destination.',
    columns: [
      { name: 'Sync', type: 'string', jsonPath: '.status.syncStatus' },
      { name: 'Health', type: 'string', jsonPath: '.status.healthStatus' },
      { name: 'Revision', type: 'string', jsonPath: '.status.revision' },
      AGE,
    ],
    spec: AppSpecSchema,
    status: AppStatusSchema,
  });
}

/** The AppSet CRD (issue 27) as a plain object, ready to apply or serialise. */
export function buildAppSetCrd(): JsonSchema {
  return buildCrd({
    kind: APPSET_KIND,
    plural: APPSET_PLURAL,
    singular: APPSET_SINGULAR,
    shortNames: [APPSET_SINGULAR],
    description: 'An AppSet generates Apps from one template and generators (registered clusters, Git, lists).',
    columns: [AGE],
    spec: AppSetSpecSchema,
    status: AppSetStatusSchema,
  });
}

/** The CRD as the YAML text checked in at deploy/crds/apps.cd.svc.space.yaml. */
export function renderAppCrdYaml(): string {
  return `# Generated from src/core/app-schema.ts by \`npm run generate\`. Do not edit.\n${stringify(buildAppCrd(), { lineWidth: 0 })}`;
}

/** The AppSet CRD as the YAML text checked in at deploy/crds/appsets.cd.svc.space.yaml. */
export function renderAppSetCrdYaml(): string {
  return `# Generated from src/core/appset-schema.ts by \`npm run generate\`. Do not edit.\n${stringify(buildAppSetCrd(), { lineWidth: 0 })}`;
}
