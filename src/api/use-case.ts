/**
 * The one shape of an API use-case, and the one pipeline that runs it: locate → authorize → act → present.
 *
 * A use-case declares the permission it needs and where that permission is checked; the pipeline checks it with
 * `canI` (src/auth/rbac.ts) before the use-case acts, so no handler or service places its own check. Database writes
 * go through `ctx.write`, which runs them and their audit entry in one transaction (and refuses a write that records
 * none); writes outside the database (App resources in the management cluster) are audited with `ctx.audit` once
 * they succeed. The REST routes (src/api/routes) and the MCP tools (src/mcp/tools.ts) run the same use-cases through
 * `run`, so both are authorized and audited alike.
 */
import type { Caller, CallerOrg } from '../auth/caller.ts';
import { canAnywhere, canI } from '../auth/rbac.ts';
import { ForbiddenError } from '../core/errors.ts';
import type { Permission, ScopeRef } from '../core/permissions.ts';
import type { AuditNote, NewAuditEntry } from '../store/audit.ts';
import { inTransaction, type TransactionStores } from '../store/transaction.ts';
import type { Actor } from './actor.ts';
import type { ApiServices } from './services.ts';

/** The org scope. */
export const ORG_SCOPE: ScopeRef = { scope: 'org', scopeId: '' };

/** What an audit entry says; the pipeline adds the org, the user and the MCP tool acting for it. */
export type { AuditNote };

/** The stores of one transaction, plus the audit entry of what it writes. */
export interface AuditedTransaction extends TransactionStores {
  /** Records the audit entry of this transaction's writes (at least one per `ctx.write`). */
  record(note: AuditNote): Promise<void>;
}

/** What a use-case acts with. */
export interface UseCaseContext {
  readonly actor: Actor;
  readonly services: ApiServices;
  /** Whether the caller holds `permission` at `at` (for filtering what a list shows). */
  can(permission: Permission, at?: ScopeRef): boolean;
  /** A second permission some use-cases need besides their own (promote's target, rollback pausing automation). */
  require(permission: Permission, at?: ScopeRef): void;
  /** Runs database writes and their audit entry in one transaction; a write without an audit entry is refused. */
  write<T>(fn: (tx: AuditedTransaction) => Promise<T>): Promise<T>;
  /** Records the audit entry of a write outside the database (App resources), after it succeeded. */
  audit(note: AuditNote): Promise<void>;
  /** Runs another use-case for the same caller, through the same pipeline (its own permission check included). */
  run<I, T, R>(useCase: UseCase<I, T, R>, input: I): Promise<R>;
}

/**
 * Where a use-case's permission is checked:
 * - `org`: at org scope;
 * - `anywhere`: held at some scope; the use-case shows only what `ctx.can` allows (lists);
 * - `{ input }`: at a scope the input names (a destination, an API key's scope), before anything is read;
 * - `{ target }`: at the scope of what `locate` found (an App's destination, an incident's App);
 * - `self`: no permission: the caller reads or changes its own records (its sessions, its identity).
 */
export type Where<I, T> =
  | 'org'
  | 'anywhere'
  | 'self'
  | { input: (input: I, ctx: UseCaseContext) => ScopeRef | Promise<ScopeRef> }
  | { target: (target: T, input: I) => ScopeRef };

/** An API use-case. */
export interface UseCase<I, T, R> {
  /** The permission the use-case needs (ignored for `self`). */
  readonly permission: Permission | null;
  readonly where: Where<I, T>;
  /** Finds what the use-case acts on (404 when absent in the caller org); runs before a `{ target }` check. */
  readonly locate?: (ctx: UseCaseContext, input: I) => Promise<T>;
  readonly act: (ctx: UseCaseContext, input: I, target: T) => Promise<R>;
}

/** Declares a use-case (an identity function that lets TypeScript infer the input, target and result types). */
export function useCase<I, T = undefined, R = unknown>(spec: UseCase<I, T, R>): UseCase<I, T, R> {
  return spec;
}

/** Who runs a use-case: the authenticated caller, and the MCP tool acting for it, if any. */
export interface Principal {
  caller: Caller;
  tool?: string;
}

/** Throws ForbiddenError (naming the permission and where) unless the caller holds `permission` at `at`. */
function requirePermission(caller: Caller, permission: Permission, at: ScopeRef): void {
  if (!canI(caller, permission, at.scope, at.scopeId)) {
    const where = at.scope === 'org' ? 'in this organization' : `on ${at.scope} "${at.scopeId}"`;
    throw new ForbiddenError(`missing permission ${permission} ${where}`);
  }
}

function contextOf(services: ApiServices, caller: Caller, org: CallerOrg | undefined, tool?: string): UseCaseContext {
  const actor: Actor = { caller, org: org as CallerOrg, ...(tool ? { tool } : {}) };
  const entry = (note: AuditNote): NewAuditEntry => ({
    ...note,
    orgId: actor.org.id,
    userId: caller.user.id,
    ...(tool ? { details: { ...note.details, tool } } : {}),
  });
  return {
    actor,
    services,
    can: (permission, at = ORG_SCOPE) => canI(caller, permission, at.scope, at.scopeId),
    require: (permission, at = ORG_SCOPE) => requirePermission(caller, permission, at),
    write: (fn) =>
      inTransaction(services.store.db, async (stores) => {
        let recorded = 0;
        const result = await fn({
          ...stores,
          record: async (note) => {
            recorded++;
            await stores.audit.record(entry(note));
          },
        });
        // A state change without its audit entry is a programming error; the transaction rolls back.
        if (recorded === 0) throw new Error('a use-case wrote without recording an audit entry');
        return result;
      }),
    audit: (note) => services.audit.record(entry(note)),
    run: (useCase, input) => run(services, useCase, { caller, ...(tool ? { tool } : {}) }, input),
  };
}

/**
 * Runs a use-case for `principal`: locate (404), authorize where the use-case says (403), act. Every use-case but a
 * `self` one needs the caller to belong to an org (403 otherwise).
 */
export async function run<I, T, R>(
  services: ApiServices,
  useCase: UseCase<I, T, R>,
  principal: Principal,
  input: I,
): Promise<R> {
  const { caller } = principal;
  const { where, permission } = useCase;
  if (where !== 'self' && !caller.org) throw new ForbiddenError('the caller belongs to no organization');
  const ctx = contextOf(services, caller, caller.org, principal.tool);
  if (where !== 'self' && permission) {
    if (where === 'org') requirePermission(caller, permission, ORG_SCOPE);
    else if (where === 'anywhere') {
      if (!canAnywhere(caller, permission)) throw new ForbiddenError(`missing permission ${permission}`);
    } else if ('input' in where) requirePermission(caller, permission, await where.input(input, ctx));
  }
  const target = (useCase.locate ? await useCase.locate(ctx, input) : undefined) as T;
  if (typeof where === 'object' && 'target' in where && permission) {
    requirePermission(caller, permission, where.target(target, input));
  }
  return useCase.act(ctx, input, target);
}
