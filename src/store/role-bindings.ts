/** Role bindings: a user or team holds a level (read, sync, admin) at an org, cluster or deployment scope. */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from './database.ts';

export interface RoleBinding {
  id: string;
  orgId: string;
  subjectType: 'user' | 'team';
  subjectId: string;
  scope: string;
  scopeId: string;
  level: string;
  createdAt: string;
}

function toBinding(r: Tables['role_binding']): RoleBinding {
  return {
    id: r.id,
    orgId: r.org_id,
    subjectType: r.subject_type === 'team' ? 'team' : 'user',
    subjectId: r.subject_id,
    scope: r.scope,
    scopeId: r.scope_id,
    level: r.level,
    createdAt: r.created_at,
  };
}

/** Role-binding persistence. One binding per subject and scope: binding again replaces the level. */
export class RoleBindingStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Creates or replaces the subject's binding at the scope. */
  async bind(input: Omit<RoleBinding, 'id' | 'createdAt'>, now = new Date()): Promise<RoleBinding> {
    const row: Tables['role_binding'] = {
      id: randomUUID(),
      org_id: input.orgId,
      subject_type: input.subjectType,
      subject_id: input.subjectId,
      scope: input.scope,
      scope_id: input.scopeId,
      level: input.level,
      created_at: now.toISOString(),
    };
    await this.#db
      .insertInto('role_binding')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['org_id', 'subject_type', 'subject_id', 'scope', 'scope_id']).doUpdateSet({ level: input.level }),
      )
      .execute();
    const stored = await this.#db
      .selectFrom('role_binding')
      .selectAll()
      .where('org_id', '=', input.orgId)
      .where('subject_type', '=', input.subjectType)
      .where('subject_id', '=', input.subjectId)
      .where('scope', '=', input.scope)
      .where('scope_id', '=', input.scopeId)
      .executeTakeFirstOrThrow();
    return toBinding(stored);
  }

  /** Every binding in the org held by the user directly or through one of `teamIds`. */
  async forSubjects(orgId: string, userId: string, teamIds: readonly string[]): Promise<RoleBinding[]> {
    const rows = await this.#db
      .selectFrom('role_binding')
      .selectAll()
      .where('org_id', '=', orgId)
      .where((eb) => {
        const user = eb.and([eb('subject_type', '=', 'user'), eb('subject_id', '=', userId)]);
        return teamIds.length === 0
          ? user
          : eb.or([user, eb.and([eb('subject_type', '=', 'team'), eb('subject_id', 'in', teamIds)])]);
      })
      .execute();
    return rows.map(toBinding);
  }

  /** All bindings of an org, oldest first. */
  async list(orgId: string): Promise<RoleBinding[]> {
    const rows = await this.#db
      .selectFrom('role_binding')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at')
      .execute();
    return rows.map(toBinding);
  }

  /** Removes a binding of the org; true when one was removed. */
  async unbind(orgId: string, id: string): Promise<boolean> {
    const r = await this.#db
      .deleteFrom('role_binding')
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Removes every binding the subject holds in the org (a team that was removed); returns how many. */
  async unbindSubject(orgId: string, subjectType: 'user' | 'team', subjectId: string): Promise<number> {
    const r = await this.#db
      .deleteFrom('role_binding')
      .where('org_id', '=', orgId)
      .where('subject_type', '=', subjectType)
      .where('subject_id', '=', subjectId)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
