/** The audit use-case (contract §4.5). */
import type { AuditEntry } from '../../store/audit.ts';
import { useCase } from '../use-case.ts';

/** One page of the org's audit entries, newest first (`audit:read`). */
export const listAudit = useCase({
  permission: 'audit:read',
  where: 'org',
  act: (ctx, page: { limit: number; offset: number }): Promise<AuditEntry[]> =>
    ctx.services.audit.list(ctx.actor.org.id, page.limit, page.offset),
});
