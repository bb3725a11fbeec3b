/** The audit use-case (contract §4.5). */
import type { AuditEntry } from '../../store/audit.ts';
import { useCase } from '../use-case.ts';

/** One page of the org's audit entries, newest first, each naming who acted (`audit:read`). */
export const listAudit = useCase({
  permission: 'audit:read',
  where: 'org',
  act: async (ctx, page: { limit: number; offset: number }): Promise<AuditEntry[]> => {
    const entries = await ctx.services.audit.list(ctx.actor.org.id, page.limit, page.offset);
    const actors = await ctx.services.audit.actors(entries.map((e) => e.user_id));
    return entries.map((e) => {
      const actor = actors.get(e.user_id);
      return actor ? { ...e, user_name: actor.name, user_email: actor.email } : e;
    });
  },
});
