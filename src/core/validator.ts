/**
 * JSON Schema validation of svc's TypeBox schemas with Ajv: one compiled validator per schema, messages that name
 * the offending path (`source.git.branch must be string`), defaults filled in as the apiserver would.
 */

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from 'typebox';

// ajv-formats is CommonJS; under ESM its callable arrives as the `default` of the module namespace.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, coerceTypes: false });
addFormats(ajv);
const compiled = new WeakMap<TSchema, ValidateFunction>();

function validatorFor(schema: TSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

function describe(prefix: string, e: ErrorObject): string {
  const path = [prefix, ...e.instancePath.split('/').filter(Boolean)].filter(Boolean).join('.');
  const where = path === '' ? 'body' : path;
  if (e.keyword === 'additionalProperties') {
    return `${where} has unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  }
  if (e.keyword === 'required') {
    return `${where === 'body' ? '' : `${where}.`}${(e.params as { missingProperty: string }).missingProperty} is required`;
  }
  if (e.keyword === 'enum') {
    return `${where} must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}`;
  }
  return `${where} ${e.message ?? 'is invalid'}`;
}

/**
 * Validates `value` against `schema`, filling in schema defaults in place. Returns the list of problems, each
 * naming its path below `prefix` (empty when valid).
 */
export function schemaProblems(schema: TSchema, value: unknown, prefix = ''): string[] {
  const fn = validatorFor(schema);
  if (fn(value)) return [];
  return [...new Set((fn.errors ?? []).map((e) => describe(prefix, e)))];
}

// Schemas written by users (catalog templates' params): a second instance, converting "3" to 3 where the schema
// asks for a number (params arrive as text), compiled once per distinct schema text (a bounded cache).
const coercing = new Ajv({ allErrors: true, useDefaults: true, strict: false, coerceTypes: true });
const plain = new Ajv({ allErrors: true, useDefaults: true, strict: false, coerceTypes: false });
const byText = new Map<string, ValidateFunction>();
const BY_TEXT_KEPT = 256;

/**
 * Validates `value` against a plain JSON Schema object (not a TypeBox one: e.g. a catalog template's params),
 * filling defaults in place and, with `coerce`, converting scalars to the types the schema names. Problems name
 * their path below `prefix`; empty when valid.
 */
export function jsonSchemaProblems(
  schema: object,
  value: unknown,
  prefix = '',
  options: { coerce?: boolean } = {},
): string[] {
  const key = `${options.coerce ? 'c' : 'p'}${JSON.stringify(schema)}`;
  let fn = byText.get(key);
  if (!fn) {
    fn = (options.coerce ? coercing : plain).compile(schema);
    if (byText.size >= BY_TEXT_KEPT) byText.delete(byText.keys().next().value as string);
    byText.set(key, fn);
  }
  if (fn(value)) return [];
  return [...new Set((fn.errors ?? []).map((e) => describe(prefix, e)))];
}
