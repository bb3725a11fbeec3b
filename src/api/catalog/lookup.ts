/**
 * The server's own catalog lookup: a version of an org's template, by org namespace, read from the store. The
 * operator reaches the same through the internal channel (src/api/internal/local-channel.ts answers with it); the
 * server's diffs and live reads of Catalog Apps call it directly.
 */
import type { Kysely } from 'kysely';
import type { CatalogTemplateVersion } from '../../core/catalog.ts';
import { NotFoundError } from '../../core/errors.ts';
import { CatalogStore } from '../../store/catalog.ts';
import type { Tables } from '../../store/database.ts';
import { orgIdOfNamespace } from '../../store/orgs.ts';

/**
 * Version `version` of the template `name` of the org owning `orgNamespace`, its current version without one.
 * NotFoundError (retry hint `wait`: the template may be written later) when there is no such org, template or version.
 */
export async function catalogTemplateOf(
  db: Kysely<Tables>,
  orgNamespace: string,
  name: string,
  version?: number,
): Promise<CatalogTemplateVersion> {
  const orgId = await orgIdOfNamespace(db, orgNamespace);
  if (!orgId) throw new NotFoundError(`no organization owns namespace "${orgNamespace}"`, { retry: 'wait' });
  const store = new CatalogStore(db);
  const found = version === undefined ? await store.get(orgId, name) : await store.version(orgId, name, version);
  if (!found) {
    const what =
      version === undefined ? `catalog template "${name}"` : `version ${version} of catalog template "${name}"`;
    throw new NotFoundError(`${what} not found`, { retry: 'wait' });
  }
  return {
    name: found.name,
    ...(found.description !== undefined ? { description: found.description } : {}),
    source: found.source,
    paramsSchema: found.paramsSchema,
    version: found.version,
  };
}
