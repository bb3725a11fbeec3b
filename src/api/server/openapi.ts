/**
 * The OpenAPI document at /api/v1/openapi.json, generated from the route schemas by @fastify/swagger. Named schemas
 * (src/api/contract/components.ts) become `#/components/schemas/<name>`, referenced wherever a route uses them, so a
 * client generated from the document gets one type per name.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { COMPONENTS } from '../contract/components.ts';
import { acceptsEmpty } from '../contract/schema.ts';

const byId = new Map<string, unknown>(COMPONENTS.map((c) => [c.$id, c]));

/** A route schema part, its `$ref` to a component resolved. */
function resolved(schema: unknown): unknown {
  const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
  return typeof ref === 'string' ? byId.get(ref) : schema;
}

/**
 * The operations (`post /api/v1/apps/{namespace}/{name}/sync`) whose body may be left out: the API takes no body as
 * `{}` (src/api/server/api-scope.ts), so a body whose every field is optional is not required. @fastify/swagger marks
 * every body required; the document is corrected once built.
 */
function collectOptionalBodies(app: FastifyInstance): Set<string> {
  const optional = new Set<string>();
  app.addHook('onRoute', (route) => {
    const body = route.schema?.body;
    if (body === undefined || !acceptsEmpty(resolved(body))) return;
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    for (const method of [route.method].flat()) optional.add(`${method.toLowerCase()} ${path}`);
  });
  return optional;
}

type Operations = Record<string, Record<string, { requestBody?: { required?: boolean } }>>;

/** Registers every component schema with Fastify (validation, serialization) and the document generator. */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  for (const schema of COMPONENTS) app.addSchema(schema);
  const optionalBodies = collectOptionalBodies(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'svc API', version: '0.1.0', description: 'GitOps continuous delivery for Kubernetes' },
      servers: [{ url: config.publicURL }],
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: config.sessionCookieName },
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key `svc_…`' },
          notificationToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'a registry notification token `svcrn_…` (registry notification endpoint only)',
          },
        },
      },
      security: [{ session: [] }, { apiKey: [] }],
    },
    // Components keep their names in the document (the default would number them def-0, def-1, …).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json['$id'] ?? `def-${i}`) },
    transformObject: (documents) => {
      if (!('openapiObject' in documents)) return documents.swaggerObject;
      const document = documents.openapiObject;
      for (const [path, operations] of Object.entries((document.paths ?? {}) as Operations)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (operation.requestBody && optionalBodies.has(`${method} ${path}`)) operation.requestBody.required = false;
        }
      }
      return document;
    },
  });
}
