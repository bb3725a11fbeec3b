/** Orgs as svc's own code reads them (Better Auth owns the table): the org that owns an App resource's namespace. */
import type { Kysely } from 'kysely';
import { orgSlugOf } from '../core/names.ts';
import type { Tables } from './database.ts';

/** The id of the org whose namespace (`org-<slug>`) is `namespace`, or undefined when no org owns it. */
export async function orgIdOfNamespace(db: Kysely<Tables>, namespace: string): Promise<string | undefined> {
  const slug = orgSlugOf(namespace);
  if (!slug) return undefined;
  const row = await db.selectFrom('organization').select('id').where('slug', '=', slug).executeTakeFirst();
  return row?.id;
}
