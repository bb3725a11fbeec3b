/** The caller's own use-cases (contract §4.1): who it is, its sessions, and what it may do. */
import { decide } from '../../auth/rbac.ts';
import { NotFoundError } from '../../core/errors.ts';
import { SessionStore } from '../../store/sessions.ts';
import { parseScope } from '../contract/scope-input.ts';
import { useCase } from '../use-case.ts';

/** The authenticated caller. */
export const whoAmI = useCase({
  permission: null,
  where: 'self',
  act: async (ctx, _input: undefined) => ctx.actor.caller,
});

/** The caller's live sessions, newest first (the current one marked). */
export const listSessions = useCase({
  permission: null,
  where: 'self',
  act: async (ctx, _input: undefined) => {
    const sessions = await new SessionStore(ctx.services.store.db).live(ctx.actor.caller.user.id);
    return sessions.map((s) => ({ ...s, current: s.id === ctx.actor.caller.sessionId }));
  },
});

/**
 * Revokes one of the caller's sessions (404 for any other). Not audited: it ends a sign-in of the caller itself,
 * as signing out does, and a caller may belong to no org to audit it in.
 */
export const revokeSession = useCase({
  permission: null,
  where: 'self',
  act: async (ctx, id: string) => {
    if (!(await new SessionStore(ctx.services.store.db).revoke(ctx.actor.caller.user.id, id))) {
      throw new NotFoundError('session not found');
    }
  },
});

/** Whether the caller holds a permission at a scope, and through which grants. */
export const canI = useCase({
  permission: null,
  where: 'self',
  act: async (ctx, input: { permission: string; scope?: string | undefined; scope_id?: string | undefined }) => {
    const { scope, scopeId } = parseScope(input.scope, input.scope_id);
    return decide(ctx.actor.caller, input.permission, scope, scopeId);
  },
});
