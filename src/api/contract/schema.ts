/**
 * TypeBox building blocks of the API contract. Every route's params, query, body and answers are TypeBox schemas
 * (src/api/<resource>/contract.ts): Fastify validates requests and serializes answers with them, the route handlers
 * take their TypeScript types from them (@fastify/type-provider-typebox), and @fastify/swagger turns them into the
 * OpenAPI document. Named schemas (`component`) are registered once with Fastify and referenced (`ref`), so the
 * document has stable component names (`#/components/schemas/App`) for generated clients.
 */
import { type Static, type TObject, type TProperties, type TSchema, type TUnsafe, Type } from 'typebox';
import { DNS1123_LABEL_MAX, DNS1123_LABEL_PATTERN } from '../../core/names.ts';

/** A DNS-1123 label as a piece of a larger pattern (the 63-character bound included). */
export const LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';
/** A host-name label of any case, as a pattern piece. */
export const HOST_LABEL = '[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
/** A TCP port 1..65535, as a pattern piece. */
export const PORT = '([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';

/** A named schema: registered with Fastify under `$id` and referenced with `ref`. */
export type Component<T extends TSchema = TSchema> = T & { $id: string };

/** Names `schema` as the component `name` (its `$id`); the registry (./components.ts) registers every one. */
export function component<T extends TSchema>(name: string, schema: T): Component<T> {
  return { ...schema, $id: name } as Component<T>;
}

/** The component `name`: the object `base` with `extra` fields (an answer that adds to a resource, e.g. a secret). */
export function extended<P extends TProperties, E extends TProperties>(name: string, base: TObject<P>, extra: E) {
  return component(name, Type.Object({ ...base.properties, ...extra }, { additionalProperties: false }));
}

/** A reference to a component, typed as the component itself. */
export function ref<T extends TSchema>(
  schema: Component<T>,
  options: { description?: string } = {},
): TUnsafe<Static<T>> {
  return Type.Unsafe<Static<T>>({ $ref: schema.$id, ...options });
}

/** One of the given strings (`enum` in the document, a string-literal union in TypeScript). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `schema` or null. */
export function Nullable<T extends TSchema>(schema: T, options: { description?: string } = {}) {
  return Type.Union([schema, Type.Null()], options);
}

/** An object passed through as stored (evidence, details, resource statuses): any properties. */
export const OpenObject = (description?: string) =>
  Type.Record(Type.String(), Type.Unknown(), description ? { description } : {});

/** A cluster in a query or body: a registered cluster's name, or empty for the management cluster. */
export const ClusterName = (description: string) =>
  Type.String({ maxLength: 63, pattern: `^(${LABEL})?$`, description });

/** A DNS-1123 label: what Kubernetes accepts as a namespace or object name, and svc as a cluster name. */
export const DnsLabel = (description?: string) =>
  Type.String({
    minLength: 1,
    maxLength: DNS1123_LABEL_MAX,
    pattern: DNS1123_LABEL_PATTERN,
    ...(description ? { description } : {}),
  });

/** An RFC 3339 timestamp as svc writes it (`2026-01-02T03:04:05.678Z`). */
export const Timestamp = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/**
 * An opaque identifier in a path (`{id}`): 1–100 characters, no `/`. The router refuses longer path parameters
 * (router.maxParamLength in ../server/http.ts), so the document says the same.
 */
export const PathId = (description = 'identifier') =>
  Type.String({ minLength: 1, maxLength: 100, pattern: '^[^/]+$', description });

/** The `{id}` path parameter. */
export const IdParams = Type.Object({ id: PathId() });

/** A body for routes that take none: absent, or an empty object. */
export const EmptyBody = component(
  'EmptyBody',
  Type.Object({}, { additionalProperties: false, description: 'no fields: send {} or no body' }),
);

/** The answer of a removal: `{"deleted": true}`. */
export const Deleted = component(
  'Deleted',
  Type.Object({ deleted: Type.Literal(true) }, { additionalProperties: false, description: 'it is gone' }),
);

/** The answer of a removal by id (registries, repositories, health checks): `{"deleted": true, "id": …}`. */
export const DeletedById = component(
  'DeletedById',
  Type.Object(
    { deleted: Type.Boolean(), id: Type.String() },
    { additionalProperties: false, description: 'it is gone, with the id it had' },
  ),
);

/** The Deleted answer. */
export const DELETED = { deleted: true } as const;

/** Largest page of the paged list routes (incidents, remediations, deliveries, audit). */
export const PAGE_MAX = 200;

/**
 * Query parameters of paged lists: `limit` 1..PAGE_MAX (default 50) and `offset` (default 0), as decimal strings
 * (query strings are not coerced, so the document says what the server parses).
 */
export const PageQuery = {
  limit: Type.Optional(
    Type.String({
      pattern: '^[1-9][0-9]{0,8}$',
      description: `page size 1..${PAGE_MAX}, default 50 (larger is capped)`,
    }),
  ),
  offset: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,8})$', description: 'entries to skip, default 0' })),
};

/** The page a paged query asks for. */
export function pageOf(query: { limit?: string | undefined; offset?: string | undefined }): {
  limit: number;
  offset: number;
} {
  return {
    limit: Math.min(query.limit === undefined ? 50 : Number(query.limit), PAGE_MAX),
    offset: query.offset === undefined ? 0 : Number(query.offset),
  };
}

/** The paging fields of a paged answer. */
export const PageFields = {
  limit: Type.Integer({ description: 'the page size used' }),
  offset: Type.Integer({ description: 'the offset used' }),
};

/**
 * Whether `{}` is a valid instance of `schema`: an object schema requiring nothing, or a union with such a variant.
 * (Enough for the body schemas of this API: objects and unions of objects.)
 */
export function acceptsEmpty(schema: unknown): boolean {
  const s = schema as { anyOf?: unknown[]; type?: unknown; required?: unknown[]; minProperties?: number };
  if (Array.isArray(s.anyOf)) return s.anyOf.some(acceptsEmpty);
  return s.type === 'object' && (s.required?.length ?? 0) === 0 && (s.minProperties ?? 0) === 0;
}

/**
 * `schema` without `default` keywords: for answers (the serializer would otherwise write a default in place of a
 * field the resource does not hold, and the API shows what is stored), and for the variants of a union (Ajv fills
 * no defaults inside anyOf; the use-case's own validation does, src/core/validator.ts).
 */
export function withoutDefaults<T extends TSchema>(schema: T): T {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'default')
        .map(([key, v]) => [key, strip(v)]),
    );
  };
  return strip(schema) as T;
}
