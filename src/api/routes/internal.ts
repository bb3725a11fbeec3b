/**
 * The internal routes the operator calls (docs/api.md "Internal routes", docs/compatibility.md "Internal channel"),
 * served under both `/internal` and `/api/v1/internal` (contract §4.3 writes its internal endpoint both ways) and
 * left out of the public OpenAPI document. Only the operator's credential is accepted (src/auth/operator-auth.ts).
 *
 * POST /internal/audit records a caller-less audit entry (user_id empty) about an App, in the org owning the App's
 * namespace: 201 `{recorded: true}`; 400 bad body; 401 no or invalid credential; 403 a user's credential or a
 * ServiceAccount outside the allowlist; 404 no org owns the namespace; 503 the TokenReview could not be made.
 *
 * GET /internal/registries/{org_namespace}/{name} answers the registry an image App names (`registryRef`) with its
 * credentials opened, for the operator's registry client: 200 `{host, insecure, ca?, username?, password?}`; 404
 * when no org owns the namespace or the org has no such registry; 401/403/503 as above. Never logged.
 */
import type { FastifyInstance } from 'fastify';
import type { OperatorAuthenticator } from '../../auth/operator-auth.ts';
import {
  INTERNAL_AUDIT_PATH,
  INTERNAL_PREFIXES,
  INTERNAL_REGISTRY_PATH,
  type ServerChannel,
  SYSTEM_AUDIT_ACTIONS,
  type SystemAuditAction,
} from '../../internal/channel.ts';

interface AuditBody {
  org_namespace: string;
  action: SystemAuditAction;
  resource_type: 'app';
  resource_id?: string;
  resource_name: string;
  details: Record<string, unknown>;
}

const AuditBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['org_namespace', 'action', 'resource_type', 'resource_name', 'details'],
  properties: {
    org_namespace: { type: 'string', minLength: 1, maxLength: 63 },
    action: { type: 'string', enum: [...SYSTEM_AUDIT_ACTIONS] },
    resource_type: { type: 'string', enum: ['app'] },
    resource_id: { type: 'string', maxLength: 128 },
    resource_name: { type: 'string', minLength: 1, maxLength: 253 },
    details: { type: 'object' },
  },
} as const;

/** Registers the internal routes under both prefixes. */
export async function internalRoutes(
  app: FastifyInstance,
  deps: { operators: OperatorAuthenticator; channel: ServerChannel },
): Promise<void> {
  for (const prefix of INTERNAL_PREFIXES) {
    await app.register(
      async (internal) => {
        internal.addHook('onRequest', async (request) => {
          if (request.is404) return;
          await deps.operators.authenticate({
            cookie: request.headers.cookie,
            authorization: request.headers.authorization,
          });
        });
        internal.post<{ Body: AuditBody }>(
          INTERNAL_AUDIT_PATH,
          { schema: { hide: true, body: AuditBodySchema } },
          async (request, reply) => {
            const b = request.body;
            await deps.channel.recordAudit({
              orgNamespace: b.org_namespace,
              action: b.action,
              resourceType: b.resource_type,
              ...(b.resource_id ? { resourceId: b.resource_id } : {}),
              resourceName: b.resource_name,
              details: b.details,
            });
            return reply.code(201).send({ recorded: true });
          },
        );
        internal.get<{ Params: { org_namespace: string; name: string } }>(
          `${INTERNAL_REGISTRY_PATH}/:org_namespace/:name`,
          {
            schema: {
              hide: true,
              params: {
                type: 'object',
                required: ['org_namespace', 'name'],
                properties: {
                  org_namespace: { type: 'string', minLength: 1, maxLength: 63 },
                  name: { type: 'string', minLength: 1, maxLength: 63 },
                },
              },
            },
          },
          async (request) => {
            const r = await deps.channel.registry(request.params.org_namespace, request.params.name);
            return {
              host: r.host,
              insecure: r.insecure === true,
              ...(r.ca ? { ca: r.ca } : {}),
              ...(r.credentials ? { username: r.credentials.username, password: r.credentials.password } : {}),
            };
          },
        );
      },
      { prefix },
    );
  }
}
