/**
 * The org health-check use-cases (docs/api.md "Health checks"): list and read (`healthcheck:read`), put and delete
 * (`healthcheck:manage`). A check is validated before it is stored (400 naming the compile error: syntax, unknown
 * function or variable, a size or nesting limit; src/engine/health/cel); each write and its audit entry
 * (`healthcheck.put`, `healthcheck.delete`) land in one transaction. The operator reads the org's checks over the
 * internal channel within 30 s.
 */
import type { HealthCheck } from '../../core/app-schema.ts';
import { ConflictError, NotFoundError } from '../../core/errors.ts';
import { validateCheck } from '../../engine/health/cel/compile.ts';
import { isUniqueViolation } from '../../store/database.ts';
import { type HealthCheckRecord, HealthCheckStore } from '../../store/health-checks.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { Actor } from '../actor.ts';
import { requirePermission } from '../context.ts';
import type { ApiServices } from '../services.ts';

/** The health-check use-cases of one server. */
export class HealthCheckService {
  readonly #services: ApiServices;
  readonly #store: HealthCheckStore;

  constructor(services: ApiServices) {
    this.#services = services;
    this.#store = new HealthCheckStore(services.store.db);
  }

  /** The org's checks (`healthcheck:read`). */
  async list(actor: Actor): Promise<HealthCheckRecord[]> {
    requirePermission(actor, 'healthcheck:read');
    return this.#store.list(actor.org.id);
  }

  /** One check (`healthcheck:read`); 404 when the org has none with that id. */
  async get(actor: Actor, id: string): Promise<HealthCheckRecord> {
    requirePermission(actor, 'healthcheck:read');
    const found = await this.#store.get(actor.org.id, id);
    if (!found) throw new NotFoundError('health check not found');
    return found;
  }

  /**
   * Creates the org's check for an apiVersion and kind, or replaces it (`healthcheck:manage`); 400 naming the compile
   * error of a bad expression. Answers the check and whether it is new.
   */
  async put(actor: Actor, check: HealthCheck): Promise<{ record: HealthCheckRecord; created: boolean }> {
    requirePermission(actor, 'healthcheck:manage');
    validateCheck('check', check);
    try {
      return await inTransaction(this.#services.store.db, async (tx) => {
        const result = await new HealthCheckStore(tx.db).put(actor.org.id, check);
        await tx.audit.record({
          orgId: actor.org.id,
          userId: actor.caller.user.id,
          action: 'healthcheck.put',
          resourceType: 'healthcheck',
          resourceId: result.record.id,
          resourceName: `${check.apiVersion}/${check.kind}`,
          details: { created: result.created },
        });
        return result;
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new ConflictError(`a check for ${check.apiVersion} ${check.kind} is being written`);
      throw err;
    }
  }

  /** Deletes a check (`healthcheck:manage`); 404 when the org has none with that id. */
  async delete(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'healthcheck:manage');
    const found = await this.get(actor, id);
    await inTransaction(this.#services.store.db, async (tx) => {
      await new HealthCheckStore(tx.db).delete(actor.org.id, id);
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'healthcheck.delete',
        resourceType: 'healthcheck',
        resourceId: id,
        resourceName: `${found.apiVersion}/${found.kind}`,
        details: {},
      });
    });
  }
}
