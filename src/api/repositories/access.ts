/**
 * The server's answer to "which credentials reach this source" (ServerChannel.sourceAccess), for the operator over
 * the internal channel and for the server's own renders (diff, preview): the repository an App names, if it covers
 * the App's URL; else the org's covering repository of the source's type with the longest URL; else, for an
 * `oci://` chart, the org's registry of that host (registries' credentials reach their charts too).
 */

import type { Kysely } from 'kysely';
import { NotFoundError } from '../../core/errors.ts';
import { chartRepositoryKind } from '../../core/helm-chart.ts';
import { matchRepository, type SourceAccess } from '../../core/repository.ts';
import type { SourceAccessRequest } from '../../internal/channel.ts';
import type { Tables } from '../../store/database.ts';
import { orgIdOfNamespace } from '../../store/orgs.ts';
import type { RegistryStore } from '../../store/registries.ts';
import type { RepositoryStore } from '../../store/repositories.ts';

/** Resolves source access from the org's repositories and registries. */
export class RepositoryAccess {
  readonly #db: Kysely<Tables>;
  readonly #repositories: RepositoryStore;
  readonly #registries: RegistryStore;

  constructor(db: Kysely<Tables>, repositories: RepositoryStore, registries: RegistryStore) {
    this.#db = db;
    this.#repositories = repositories;
    this.#registries = registries;
  }

  /** See ServerChannel.sourceAccess. NotFoundError (hint `wait`) for a repositoryRef that does not apply. */
  async sourceAccess(request: SourceAccessRequest): Promise<SourceAccess | undefined> {
    const orgId = await orgIdOfNamespace(this.#db, request.orgNamespace);
    if (!orgId) throw new NotFoundError(`no organization owns namespace "${request.orgNamespace}"`, { retry: 'wait' });
    const entries = await this.#repositories.entries(orgId);
    const ref = request.repositoryRef;
    const match = matchRepository(entries, request.type, request.url, ref);
    if (ref !== undefined && !match) {
      const named = entries.find((e) => e.name === ref);
      const why = !named
        ? 'is not registered in this organization'
        : named.type !== request.type
          ? `is a ${named.type} repository`
          : `is for ${named.url}, which does not cover this source's URL`;
      throw new NotFoundError(`repository "${ref}" ${why}`, { retry: 'wait' });
    }
    if (match) return this.#repositories.access(orgId, match.name);
    if (request.type === 'helm' && chartRepositoryKind(request.url) === 'oci')
      return this.#registryFor(orgId, request.url);
    return undefined;
  }

  /** The org's registry whose host is the oci:// URL's, as source access. */
  async #registryFor(orgId: string, url: string): Promise<SourceAccess | undefined> {
    const host = /^oci:\/\/([^/]+)/i.exec(url)?.[1]?.toLowerCase();
    const registry = (await this.#registries.list(orgId)).find((r) => r.host.toLowerCase() === host);
    const endpoint = registry && (await this.#registries.endpoint(orgId, registry.name));
    if (!registry || !endpoint) return undefined;
    return {
      repository: `registry ${registry.name}`,
      ...(endpoint.insecure ? { insecure: true } : {}),
      credentials: {
        ...(endpoint.credentials
          ? { username: endpoint.credentials.username, password: endpoint.credentials.password }
          : {}),
        ...(endpoint.ca ? { ca: endpoint.ca } : {}),
      },
    };
  }
}
