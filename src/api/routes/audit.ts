/** GET /audit (contract §4.5): the caller org's audit entries, newest first, paged by limit and offset. */
import { type Api, principalOf } from '../api.ts';
import { listAuditRoute } from '../audit/contract.ts';
import { listAudit } from '../audit/use-cases.ts';
import { pageOf } from '../contract/schema.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers GET /audit. */
export async function auditRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/audit', { schema: listAuditRoute }, async (request) => {
    const page = pageOf(request.query);
    return { entries: await run(services, listAudit, principalOf(request), page), ...page };
  });
}
