/**
 * A real failure of the audit write, for tests that prove a state change and its audit entry commit together: a
 * trigger that makes the database itself refuse every INSERT into audit_log (SQLite or PostgreSQL).
 */
import { sql } from 'kysely';
import type { Store } from '../../src/store/database.ts';

/** Makes `store`'s database refuse audit inserts until the returned function is called. */
export async function refuseAuditInserts(store: Store): Promise<() => Promise<void>> {
  if (store.kind === 'postgres') {
    await sql`create or replace function svc_test_refuse_audit() returns trigger language plpgsql as $$
      begin raise exception 'audit write refused by the test'; end $$`.execute(store.db);
    await sql`create trigger svc_test_refuse_audit before insert on audit_log
      for each row execute function svc_test_refuse_audit()`.execute(store.db);
    return async () => {
      await sql`drop trigger svc_test_refuse_audit on audit_log`.execute(store.db);
    };
  }
  await sql`create trigger svc_test_refuse_audit before insert on audit_log
    begin select raise(abort, 'audit write refused by the test'); end`.execute(store.db);
  return async () => {
    await sql`drop trigger svc_test_refuse_audit`.execute(store.db);
  };
}
