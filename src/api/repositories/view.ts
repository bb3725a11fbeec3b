/** How a repository looks in the API (docs/api.md "Repositories"): never a secret, only whether each is set. */
import type { Static } from 'typebox';
import type { RepositoryRecord } from '../../store/repositories.ts';
import type { Repository } from './contract.ts';

/** The API view of a repository. */
export function repositoryView(r: RepositoryRecord): Static<typeof Repository> {
  return {
    id: r.id,
    name: r.name,
    type: r.type,
    url: r.url,
    insecure: r.insecure,
    username: r.username,
    has_password: r.hasPassword,
    has_ssh_private_key: r.hasSshPrivateKey,
    known_hosts: r.knownHosts,
    ca: r.ca,
    tls_client_cert: r.tlsClientCert,
    has_tls_client_key: r.hasTlsClientKey,
    status: r.status,
    status_detail: r.statusDetail,
    last_tested_at: r.lastTestedAt,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

/** An App that uses a repository: by naming it (`repositoryRef`) or because the repository covers its URL. */
export interface RepositoryReference {
  app: string;
  via: 'repositoryRef' | 'url';
}
