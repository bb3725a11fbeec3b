/**
 * /role-bindings: grant a user or team a level (read, sync, admin) at an org, cluster or deployment scope. Not in
 * the contract's tables (it names the bindings, not their routes); see docs/compatibility.md ("Role bindings have routes").
 */
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../core/errors.ts';
import { LEVELS } from '../../core/permissions.ts';
import type { RoleBinding } from '../../store/role-bindings.ts';
import { inTransaction } from '../../store/transaction.ts';
import { authorize } from '../context.ts';
import { errorResponses } from '../error-responses.ts';
import type { ApiServices } from '../services.ts';
import { parseScope } from './scope-input.ts';

const BindingSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    subject_type: { type: 'string', enum: ['user', 'team'] },
    subject_id: { type: 'string' },
    scope: { type: 'string' },
    scope_id: { type: 'string' },
    level: { type: 'string', enum: [...LEVELS] },
    created_at: { type: 'string' },
  },
} as const;

function view(b: RoleBinding) {
  return {
    id: b.id,
    subject_type: b.subjectType,
    subject_id: b.subjectId,
    scope: b.scope,
    scope_id: b.scopeId,
    level: b.level,
    created_at: b.createdAt,
  };
}

/** Registers GET/POST /role-bindings and DELETE /role-bindings/:id (team:read / team:manage). */
export async function roleBindingRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const { bindings, store } = services;

  app.get(
    '/role-bindings',
    {
      schema: {
        tags: ['rbac'],
        summary: 'Role bindings of the caller org',
        response: {
          200: { type: 'object', properties: { bindings: { type: 'array', items: BindingSchema } } },
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { org } = authorize(request, 'team:read');
      return { bindings: (await bindings.list(org.id)).map(view) };
    },
  );

  app.post<{
    Body: { subject_type: 'user' | 'team'; subject_id: string; scope: string; scope_id?: string; level: string };
  }>(
    '/role-bindings',
    {
      schema: {
        tags: ['rbac'],
        summary: 'Grant a user or team a level at a scope (replaces an existing binding at the same scope)',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['subject_type', 'subject_id', 'scope', 'level'],
          properties: {
            subject_type: { type: 'string', enum: ['user', 'team'] },
            subject_id: { type: 'string', minLength: 1 },
            scope: { type: 'string', enum: ['org', 'cluster', 'deployment'] },
            scope_id: { type: 'string' },
            level: { type: 'string', enum: [...LEVELS] },
          },
        },
        response: { 201: BindingSchema, ...errorResponses(404, 413, 415) },
      },
    },
    async (request, reply) => {
      const { caller, org } = authorize(request, 'team:manage');
      const body = request.body;
      const { scope, scopeId } = parseScope(body.scope, body.scope_id);
      // The subject must belong to the caller's org; anything else reads as not found.
      const subject =
        body.subject_type === 'user'
          ? await store.db
              .selectFrom('member')
              .select('id')
              .where('organizationId', '=', org.id)
              .where('userId', '=', body.subject_id)
              .executeTakeFirst()
          : await store.db
              .selectFrom('team')
              .select('id')
              .where('organizationId', '=', org.id)
              .where('id', '=', body.subject_id)
              .executeTakeFirst();
      if (!subject) throw new NotFoundError(`${body.subject_type} ${body.subject_id} not found in this organization`);
      const binding = await inTransaction(store.db, async (tx) => {
        const bound = await tx.bindings.bind({
          orgId: org.id,
          subjectType: body.subject_type,
          subjectId: body.subject_id,
          scope,
          scopeId,
          level: body.level,
        });
        await tx.audit.record({
          orgId: org.id,
          userId: caller.user.id,
          action: 'rolebinding.create',
          resourceType: 'rolebinding',
          resourceId: bound.id,
          resourceName: `${bound.subjectType}:${bound.subjectId}`,
          details: { scope, scope_id: scopeId, level: bound.level },
        });
        return bound;
      });
      return reply.code(201).send(view(binding));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/role-bindings/:id',
    {
      schema: {
        tags: ['rbac'],
        summary: 'Remove a role binding',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
        response: { 200: { type: 'object', properties: { deleted: { type: 'boolean' } } }, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { caller, org } = authorize(request, 'team:manage');
      await inTransaction(store.db, async (tx) => {
        if (!(await tx.bindings.unbind(org.id, request.params.id))) throw new NotFoundError('role binding not found');
        await tx.audit.record({
          orgId: org.id,
          userId: caller.user.id,
          action: 'rolebinding.delete',
          resourceType: 'rolebinding',
          resourceId: request.params.id,
          resourceName: request.params.id,
        });
      });
      return { deleted: true };
    },
  );
}
