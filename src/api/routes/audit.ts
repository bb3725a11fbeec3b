/** GET /audit (contract §4.5): the caller org's audit entries, newest first, paged by limit and offset. */
import type { FastifyInstance } from 'fastify';
import { InputError } from '../../core/errors.ts';
import { AUDIT_PAGE_MAX } from '../../store/audit.ts';
import { authorize } from '../context.ts';
import { errorResponses } from '../error-responses.ts';
import type { ApiServices } from '../services.ts';

const AuditEntrySchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    created_at: { type: 'string' },
    user_id: { type: 'string' },
    action: { type: 'string' },
    resource_type: { type: 'string' },
    resource_id: { type: 'string' },
    resource_name: { type: 'string' },
    details: { type: 'object', additionalProperties: true },
  },
} as const;

/** Registers GET /audit (permission audit:read at org scope). */
export async function auditRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  app.get<{ Querystring: { limit?: string; offset?: string } }>(
    '/audit',
    {
      schema: {
        tags: ['audit'],
        summary: 'Audit entries of the caller org, newest first',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'string', pattern: '^[0-9]{1,9}$', description: `1..${AUDIT_PAGE_MAX}, default 50` },
            offset: { type: 'string', pattern: '^[0-9]{1,9}$', description: 'default 0' },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              entries: { type: 'array', items: AuditEntrySchema },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
            },
          },
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { org } = authorize(request, 'audit:read');
      // Above the maximum the page is capped rather than refused.
      const limit = Math.min(request.query.limit === undefined ? 50 : Number(request.query.limit), AUDIT_PAGE_MAX);
      const offset = request.query.offset === undefined ? 0 : Number(request.query.offset);
      if (limit < 1) throw new InputError('limit must be at least 1');
      return { entries: await services.audit.list(org.id, limit, offset), limit, offset };
    },
  );
}
