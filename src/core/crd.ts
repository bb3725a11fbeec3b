/**
 * The App CustomResourceDefinition, generated from the TypeBox schemas of ./app-schema.ts so the CRD, the types and
 * the API validation cannot drift. `deploy/crds/apps.cd.svc.space.yaml` is this object as YAML (`npm run generate`);
 * a unit test fails when the checked-in file differs.
 */
import { stringify } from 'yaml';
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

/** The App CRD as a plain object, ready to apply or serialise. */
export function buildAppCrd(): JsonSchema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${APP_PLURAL}.${APP_GROUP}` },
    spec: {
      group: APP_GROUP,
      scope: 'Namespaced',
      names: {
        kind: APP_KIND,
        listKind: `${APP_KIND}List`,
        plural: APP_PLURAL,
        singular: APP_SINGULAR,
        shortNames: [APP_SHORT_NAME],
        categories: [APP_CATEGORY],
      },
      versions: [
        {
          name: APP_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Sync', type: 'string', jsonPath: '.status.syncStatus' },
            { name: 'Health', type: 'string', jsonPath: '.status.healthStatus' },
            { name: 'Revision', type: 'string', jsonPath: '.status.revision' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: 'An App deploys one source (Git manifests or a container image) to one destination.',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string', description: `${APP_GROUP}/${APP_VERSION}` },
                kind: { type: 'string', description: APP_KIND },
                // The apiserver refuses anything beside `type` here (metadata's schema is its own).
                metadata: { type: 'object' },
                spec: toStructural(AppSpecSchema),
                status: toStructural(AppStatusSchema),
              },
            },
          },
        },
      ],
    },
  };
}

/** The CRD as the YAML text checked in at deploy/crds/apps.cd.svc.space.yaml. */
export function renderAppCrdYaml(): string {
  return `# Generated from src/core/app-schema.ts by \`npm run generate\`. Do not edit.\n${stringify(buildAppCrd(), { lineWidth: 0 })}`;
}
