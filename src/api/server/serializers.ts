/**
 * The answers' serializers, one per distinct response schema, each given only the components it references.
 * Fastify builds one fast-json-stringify serializer per route and status and hands each every shared component,
 * which it checks and indexes anew; most answers share a schema (every error answer is the Error component, with
 * only its description differing) and reference a few components. Without this the server took seconds to start.
 */
import fastJson, { type Options } from 'fast-json-stringify';

type Schemas = Record<string, unknown>;

/** A response schema as a key: what changes the bytes, not what documents them (descriptions). */
function keyOf(schema: unknown): string {
  return JSON.stringify(schema, (key, value) => (key === 'description' ? undefined : value));
}

/** The components `schema` references, directly or through other components. */
function referenced(schema: unknown, all: Schemas): Schemas {
  const found: Schemas = {};
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const id = value.split('#')[0] ?? '';
        if (id in all && !(id in found)) {
          found[id] = all[id];
          visit(all[id]);
        }
      } else visit(value);
    }
  };
  visit(schema);
  return found;
}

/** Fastify's `schemaController.compilersFactory.buildSerializer`: serializers cached by schema (see above). */
export function cachingSerializerFactory(externalSchemas: unknown, serializerOpts: Options = {}) {
  const all = (externalSchemas ?? {}) as Schemas;
  const built = new Map<string, (data: unknown) => string>();
  return ({ schema }: { schema?: unknown }) => {
    const key = keyOf(schema);
    let serialize = built.get(key);
    if (!serialize) {
      const options: Options = { ...serializerOpts, schema: referenced(schema, all) as Options['schema'] };
      serialize = fastJson(schema as Parameters<typeof fastJson>[0], options) as (data: unknown) => string;
      built.set(key, serialize);
    }
    return serialize;
  };
}
