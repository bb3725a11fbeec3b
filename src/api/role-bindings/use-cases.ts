/** The role-binding use-cases: `team:read` to list, `team:manage` to grant and remove, within the caller's org. */
import { NotFoundError } from '../../core/errors.ts';
import type { Level } from '../../core/permissions.ts';
import type { RoleBinding } from '../../store/role-bindings.ts';
import { parseScope } from '../contract/scope-input.ts';
import { useCase } from '../use-case.ts';

/** A grant: who, at which scope, which level. */
export interface BindingRequest {
  subject_type: 'user' | 'team';
  subject_id: string;
  scope: string;
  scope_id?: string | undefined;
  level: Level;
}

/** The org's role bindings, oldest first. */
export const listBindings = useCase({
  permission: 'team:read',
  where: 'org',
  act: (ctx, _input: undefined) => ctx.services.bindings.list(ctx.actor.org.id),
});

/** Grants a user or team of the org a level at a scope (replacing one at the same scope); 404 for a stranger. */
export const createBinding = useCase({
  permission: 'team:manage',
  where: 'org',
  act: (ctx, body: BindingRequest): Promise<RoleBinding> =>
    ctx.write(async (tx) => {
      const orgId = ctx.actor.org.id;
      const { scope, scopeId } = parseScope(body.scope, body.scope_id);
      // The subject must belong to the caller's org; anything else reads as not found.
      const subject =
        body.subject_type === 'user'
          ? await tx.teams.orgMember(orgId, body.subject_id)
          : await tx.teams.get(orgId, body.subject_id);
      if (!subject) throw new NotFoundError(`${body.subject_type} ${body.subject_id} not found in this organization`);
      const bound = await tx.bindings.bind({
        orgId,
        subjectType: body.subject_type,
        subjectId: body.subject_id,
        scope,
        scopeId,
        level: body.level,
      });
      await tx.record({
        action: 'rolebinding.create',
        resourceType: 'rolebinding',
        resourceId: bound.id,
        resourceName: `${bound.subjectType}:${bound.subjectId}`,
        details: { scope, scope_id: scopeId, level: bound.level },
      });
      return bound;
    }),
});

/** Removes a binding of the org; 404 otherwise. */
export const deleteBinding = useCase({
  permission: 'team:manage',
  where: 'org',
  act: (ctx, id: string) =>
    ctx.write(async (tx) => {
      if (!(await tx.bindings.unbind(ctx.actor.org.id, id))) throw new NotFoundError('role binding not found');
      await tx.record({ action: 'rolebinding.delete', resourceType: 'rolebinding', resourceId: id, resourceName: id });
    }),
});
