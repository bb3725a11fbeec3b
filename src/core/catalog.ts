/**
 * Catalog templates (issue 27 item 4; docs/api.md "Catalog"): an org's reusable sources. A template is a Git or
 * HelmChart source block whose string values may hold `{{ param }}` placeholders (the AppSet template language of
 * ./appset-template.ts: no expressions, no code), and a small JSON Schema of its params (one level of scalar
 * properties). An App with `source.type: Catalog` names a template and gives params as strings; they are checked
 * against the schema (defaults filled in, numbers and booleans converted), then put into the source: a value of
 * `helmChart.values` that is exactly one placeholder takes the param's typed value (`replicaCount: "{{ replicas }}"`
 * becomes the number 3); any other placeholder is replaced as text (Git `substitution` maps reach raw manifests as
 * `${VAR}`, kustomize and helm options likewise). Pure.
 *
 * Every write of a template makes a new version; an App's revision names the version it was rendered from
 * (`<template>@v<N>/<source revision>`), so a template change is a new revision and a rollback renders the old one.
 */
import type { GitSource, HelmChartSource } from './app-schema.ts';
import { renderTemplate, templateProblems } from './appset-template.ts';
import { InputError } from './errors.ts';
import { jsonSchemaProblems } from './validator.ts';

/** The types a param may have. */
export const PARAM_TYPES = ['string', 'integer', 'number', 'boolean'] as const;
export type ParamType = (typeof PARAM_TYPES)[number];

/** One param of a template (a subset of JSON Schema the UI draws a field for). */
export interface ParamSchema {
  type: ParamType;
  title?: string;
  description?: string;
  default?: string | number | boolean;
  enum?: (string | number)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

/** The params of a template: an object of scalar properties (JSON Schema). */
export interface ParamsSchema {
  type: 'object';
  properties: Record<string, ParamSchema>;
  required?: string[];
}

/** What a template deploys: a Git or HelmChart source block, with placeholders. */
export type TemplateSource = { type: 'Git'; git: GitSource } | { type: 'HelmChart'; helmChart: HelmChartSource };

/** A template as written. */
export interface CatalogTemplateSpec {
  name: string;
  description?: string;
  source: TemplateSource;
  paramsSchema: ParamsSchema;
}

/** One version of a template (each write makes one; versions count from 1 per org and name). */
export interface CatalogTemplateVersion extends CatalogTemplateSpec {
  version: number;
}

/** Param names: what a placeholder key and a `${VAR}` can both be. */
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A string that is exactly one placeholder. */
const WHOLE = /^\{\{\s*([A-Za-z0-9_][A-Za-z0-9_.[\]-]*)\s*\}\}$/;
/** Most params a template may declare. */
export const MAX_PARAMS = 64;

/** The JSON Schema params are checked with: the template's, closed to other names. */
function checkedSchema(schema: ParamsSchema): Record<string, unknown> {
  return { ...schema, required: schema.required ?? [], additionalProperties: false };
}

/**
 * What is wrong with a template the JSON Schema of the API admits: param names that are not `[A-Za-z_][A-Za-z0-9_]*`,
 * `required` naming an undeclared param, a default the param's own schema refuses, a placeholder naming no param, a
 * `{{` that opens none. Each names its field; empty when none.
 */
export function templateSpecProblems(spec: CatalogTemplateSpec): string[] {
  const props = spec.paramsSchema.properties;
  const names = Object.keys(props);
  const problems: string[] = [];
  if (names.length > MAX_PARAMS) problems.push(`params_schema: at most ${MAX_PARAMS} params`);
  for (const name of names) {
    if (!PARAM_NAME.test(name)) {
      problems.push(`params_schema.properties: param name "${name}" must match [A-Za-z_][A-Za-z0-9_]*`);
    }
    const def = props[name]?.default;
    if (def !== undefined) problems.push(...defaultProblems(name, props[name] as object, def));
  }
  for (const r of spec.paramsSchema.required ?? []) {
    if (!Object.hasOwn(props, r)) problems.push(`params_schema.required: "${r}" is not a declared param`);
  }
  try {
    jsonSchemaProblems(checkedSchema(spec.paramsSchema), {}, 'params', { coerce: true });
  } catch (err) {
    // Ajv refuses a schema it cannot compile (a pattern that is not a regular expression, an enum with duplicates).
    problems.push(`params_schema: ${err instanceof Error ? err.message : String(err)}`);
  }
  problems.push(...templateProblems(spec.source, (key) => Object.hasOwn(props, key), 'source'));
  return problems.map((p) => p.replace('no generator provides it', 'no param of params_schema'));
}

/** What is wrong with param `name`'s default; none when its schema does not compile (the whole schema's check says so). */
function defaultProblems(name: string, schema: object, value: unknown): string[] {
  try {
    return jsonSchemaProblems(schema, value, `params_schema.properties.${name}.default`);
  } catch {
    return [];
  }
}

/**
 * The App's params checked against the template's schema: defaults filled in, integers, numbers and booleans
 * converted from their text. Throws InputError with the schema's messages (`params.replicas must be integer`).
 */
export function checkedParams(
  schema: ParamsSchema,
  params: Readonly<Record<string, string>> | undefined,
): Record<string, unknown> {
  const values: Record<string, unknown> = { ...(params ?? {}) };
  const problems = jsonSchemaProblems(checkedSchema(schema), values, 'params', { coerce: true });
  if (problems.length > 0) throw new InputError(problems.join('; '));
  return values;
}

/** Fills the placeholders of `values`, keeping the type of a param that is a whole value. */
function typedValues(values: unknown, params: Record<string, unknown>, text: Record<string, string>, path: string) {
  const fill = (v: unknown, at: string): unknown => {
    if (typeof v === 'string') {
      const whole = WHOLE.exec(v);
      if (whole && Object.hasOwn(params, whole[1] as string)) return params[whole[1] as string];
      return renderTemplate(v, text, at);
    }
    if (Array.isArray(v)) return v.map((x, i) => fill(x, `${at}[${i}]`));
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, `${at}.${k}`)]));
    return v;
  };
  return fill(values, path);
}

/**
 * The source an App of `template` with `params` deploys: params checked (InputError with the schema's messages),
 * placeholders filled. A param left unset without a default fills its placeholder with the empty string.
 */
export function instantiate(
  template: CatalogTemplateVersion,
  params: Readonly<Record<string, string>> | undefined,
): TemplateSource {
  const typed = checkedParams(template.paramsSchema, params);
  const text: Record<string, string> = Object.fromEntries(
    Object.keys(template.paramsSchema.properties).map((k) => [k, typed[k] === undefined ? '' : String(typed[k])]),
  );
  if (template.source.type === 'Git') {
    return { type: 'Git', git: renderTemplate(template.source.git, text, 'source.git') };
  }
  const { values, ...rest } = template.source.helmChart;
  const chart = renderTemplate(rest, text, 'source.helmChart') as HelmChartSource;
  if (values !== undefined) {
    chart.values = typedValues(values, typed, text, 'source.helmChart.values') as Record<string, unknown>;
  }
  return { type: 'HelmChart', helmChart: chart };
}
