/**
 * Repositories (docs/api.md "Repositories"): a Git or Helm repository an org registers with the credentials that
 * reach it. Pure rules shared by the server (which stores and matches them), the engine (which hands credentials
 * to git and the chart fetcher) and the clients: the credential shape, which URL a repository covers, and which
 * repository applies to an App's source.
 *
 * A repository covers its own URL and every URL below it (Argo CD's credential templates): `https://git.example.com/
 * team` covers `https://git.example.com/team/web.git` but not `https://git.example.com/teamwork/x.git`. An App
 * names one (`repositoryRef`, which must cover the App's URL, so a repository's credentials never go to a URL it was
 * not registered for), or the covering repository of the App's kind with the longest URL applies.
 */

/** What a repository holds: Git sources, or Helm charts (HTTP(S) index.yaml or OCI). */
export const REPOSITORY_TYPES = ['git', 'helm'] as const;
export type RepositoryType = (typeof REPOSITORY_TYPES)[number];

/**
 * The credentials of a repository, in plain text: only ever in memory, on their way from the server's sealed
 * store to git or the chart fetcher. Never log, return or record them.
 */
export interface RepositoryCredentials {
  /** HTTPS basic auth (or a token as the password). */
  username?: string;
  password?: string;
  /** An SSH private key (PEM/OpenSSH), with the known_hosts lines its hosts must present. */
  sshPrivateKey?: string;
  knownHosts?: string;
  /** PEM CA certificates to trust (a private CA). */
  ca?: string;
  /** A TLS client certificate and its key (PEM). */
  tlsClientCert?: string;
  tlsClientKey?: string;
}

/** What the engine needs to reach one source: the covering repository's name (for messages) and its access. */
export interface SourceAccess {
  /** Name of the repository that applied. */
  repository: string;
  credentials: RepositoryCredentials;
  /** Plain http for an `oci://` registry (refused by the outbound policy in production mode). */
  insecure?: boolean;
}

/** Whether `prefix` (a repository's URL) covers `url` (a source's URL): equal, or `url` continues below it. */
export function urlCovers(prefix: string, url: string): boolean {
  const p = normalizeRepositoryURL(prefix);
  const u = normalizeRepositoryURL(url);
  if (u === p) return true;
  if (!u.startsWith(p)) return false;
  if (p.endsWith('/') || p.endsWith(':')) return true;
  const next = u[p.length];
  return next === '/' || next === ':' || u.slice(p.length) === '.git';
}

/** A URL as matching compares it: lower-case scheme and host part, no trailing slash, no `.git` suffix difference. */
export function normalizeRepositoryURL(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/]*)(.*)$/i.exec(url.trim());
  const text = m ? `${(m[1] ?? '').toLowerCase()}${(m[2] ?? '').toLowerCase()}${m[3] ?? ''}` : url.trim();
  return text.replace(/\/+$/, '');
}

/** A repository as matching sees it. */
export interface RepositoryEntry {
  name: string;
  type: RepositoryType;
  url: string;
}

/**
 * The repository that applies to a source at `url` of `type`: the one named `ref` (undefined when it is missing,
 * of another type or does not cover `url`: the caller says which), else the covering one with the longest URL.
 */
export function matchRepository<T extends RepositoryEntry>(
  repositories: readonly T[],
  type: RepositoryType,
  url: string,
  ref?: string,
): T | undefined {
  if (ref !== undefined) {
    const named = repositories.find((r) => r.name === ref);
    return named && named.type === type && urlCovers(named.url, url) ? named : undefined;
  }
  let best: T | undefined;
  for (const r of repositories) {
    if (r.type !== type || !urlCovers(r.url, url)) continue;
    if (!best || normalizeRepositoryURL(r.url).length > normalizeRepositoryURL(best.url).length) best = r;
  }
  return best;
}

/** The type of repository a source type reads: Git sources `git`, HelmChart sources `helm`. */
export function repositoryTypeOf(sourceType: string): RepositoryType | undefined {
  if (sourceType === 'Git') return 'git';
  if (sourceType === 'HelmChart') return 'helm';
  return undefined;
}

/** Which credentials a repository view says it holds (its `has_*` flags and public parts). */
export interface HeldCredentials {
  username?: string | null;
  has_password?: boolean;
  has_ssh_private_key?: boolean;
  known_hosts?: string | null;
  ca?: string | null;
  has_tls_client_key?: boolean;
}

/** The credentials a repository holds, in words (never their values): what the CLI and the UI show. */
export function heldCredentials(r: HeldCredentials): string {
  const held = [
    r.username ? `user ${r.username}` : '',
    r.has_password ? 'password' : '',
    r.has_ssh_private_key ? 'SSH key' : '',
    r.known_hosts ? 'known_hosts' : '',
    r.ca ? 'CA' : '',
    r.has_tls_client_key ? 'client certificate' : '',
  ].filter(Boolean);
  return held.length > 0 ? held.join(', ') : 'none (anonymous)';
}
