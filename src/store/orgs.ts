/** Orgs (Better Auth's `organization` table) as svc finds them: by the namespace `org-<slug>` of their Apps. */
import type { Kysely } from 'kysely';
import { orgNamespace, orgSlugOf } from '../core/names.ts';
import type { Tables } from './database.ts';

/** The id of the org whose App namespace is `namespace`, or undefined when it is no org's. */
export async function orgIdOfNamespace(db: Kysely<Tables>, namespace: string): Promise<string | undefined> {
  const slug = orgSlugOf(namespace);
  if (!slug) return undefined;
  const org = await db.selectFrom('organization').select('id').where('slug', '=', slug).executeTakeFirst();
  return org?.id;
}

/** The App namespace (`org-<slug>`) of the org `orgId`, or undefined when there is no such org. */
export async function namespaceOfOrg(db: Kysely<Tables>, orgId: string): Promise<string | undefined> {
  const org = await db.selectFrom('organization').select('slug').where('id', '=', orgId).executeTakeFirst();
  return org ? orgNamespace(org.slug) : undefined;
}
