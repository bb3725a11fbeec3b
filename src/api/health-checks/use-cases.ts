/**
 * The org health-check use-cases (docs/api.md "Health checks"): list and read (`healthcheck:read`), put and delete
 * (`healthcheck:manage`). A check is validated before it is stored (422 naming the compile error: syntax, unknown
 * function or variable, a size or nesting limit; src/engine/health/cel; the document cannot state CEL's grammar); each write and its audit entry
 * (`healthcheck.put`, `healthcheck.delete`) land in one transaction. The operator reads the org's checks over the
 * internal channel within 30 s.
 */
import type { HealthCheck } from '../../core/app-schema.ts';
import { ConflictError, InputError, NotFoundError, UnprocessableError } from '../../core/errors.ts';
import { isUniqueViolation } from '../../store/database.ts';
import { type HealthCheckRecord, HealthCheckStore } from '../../store/health-checks.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';

/** A put body as the API takes it. */
export interface PutHealthCheckBody {
  api_version: string;
  kind: string;
  current: string;
  in_progress?: string | undefined;
  failed?: string | undefined;
}

const storeOf = (ctx: UseCaseContext) => new HealthCheckStore(ctx.services.store.db);

/** The org's check `id`; 404 otherwise. */
async function locateCheck(ctx: UseCaseContext, id: string): Promise<HealthCheckRecord> {
  const found = await storeOf(ctx).get(ctx.actor.org.id, id);
  if (!found) throw new NotFoundError('health check not found');
  return found;
}

/**
 * Refuses (422, naming it) an expression that does not compile: a rule the document cannot state. The CEL library
 * loads with the first check written (about 25 MiB of the server's resident memory, issue 29).
 */
async function compile(check: HealthCheck): Promise<void> {
  const { validateCheck } = await import('../../engine/health/cel/compile.ts');
  try {
    validateCheck('check', check);
  } catch (err) {
    if (err instanceof InputError) throw new UnprocessableError(err.message, { cause: err });
    throw err;
  }
}

/** The org's checks. */
export const listHealthChecks = useCase({
  permission: 'healthcheck:read',
  where: 'org',
  act: (ctx, _input: undefined) => storeOf(ctx).list(ctx.actor.org.id),
});

/** One check. */
export const getHealthCheck = useCase({
  permission: 'healthcheck:read',
  where: 'org',
  locate: locateCheck,
  act: async (_ctx, _id: string, record) => record,
});

/**
 * Creates the org's check for an apiVersion and kind, or replaces it; 422 naming the compile error of a bad
 * expression. Answers the check and whether it is new; audited `healthcheck.put`.
 */
export const putHealthCheck = useCase({
  permission: 'healthcheck:manage',
  where: 'org',
  act: async (ctx, body: PutHealthCheckBody): Promise<{ record: HealthCheckRecord; created: boolean }> => {
    const check: HealthCheck = {
      apiVersion: body.api_version,
      kind: body.kind,
      current: body.current,
      ...(body.in_progress ? { inProgress: body.in_progress } : {}),
      ...(body.failed ? { failed: body.failed } : {}),
    };
    await compile(check);
    try {
      return await ctx.write(async (tx) => {
        const result = await new HealthCheckStore(tx.db).put(ctx.actor.org.id, check);
        await tx.record({
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
  },
});

/** Deletes a check; 404 when the org has none with that id. Audited `healthcheck.delete`. */
export const deleteHealthCheck = useCase({
  permission: 'healthcheck:manage',
  where: 'org',
  locate: locateCheck,
  act: async (ctx, id: string, found): Promise<HealthCheckRecord> => {
    await ctx.write(async (tx) => {
      await new HealthCheckStore(tx.db).delete(ctx.actor.org.id, id);
      await tx.record({
        action: 'healthcheck.delete',
        resourceType: 'healthcheck',
        resourceId: id,
        resourceName: `${found.apiVersion}/${found.kind}`,
        details: {},
      });
    });
    return found;
  },
});
