/**
 * The bodies of the repository routes, checked beyond their schemas (./contract.ts; each problem a 422): a URL of the
 * repository's type (a remote Git URL; an http(s):// or oci:// chart repository) without a password in it, whose
 * host the outbound policy allows (a link-local address is refused: SSRF); `insecure` (plain http) only for an
 * oci:// repository and never in production mode; credentials that fit the URL (an SSH key for an SSH URL, user
 * and password or TLS client material for the others) and PEM where PEM is expected.
 */
import type { Config } from '../../config.ts';
import { repoURLProblem } from '../../core/app-state.ts';
import { UnprocessableError } from '../../core/errors.ts';
import { chartRepositoryKind, chartRepoURLProblem } from '../../core/helm-chart.ts';
import { REPOSITORY_TYPES, type RepositoryType } from '../../core/repository.ts';
import { gitHostOf } from '../../engine/sources/index.ts';
import { isSshURL } from '../../git/index.ts';
import { checkOutboundHost } from '../../net/outbound.ts';

/** The connection fields of a repository, as sent (create, test) or merged with the stored ones (update). */
export interface RepositoryInput {
  type: RepositoryType;
  url: string;
  insecure?: boolean;
  username?: string | null;
  password?: string | null;
  ssh_private_key?: string | null;
  known_hosts?: string | null;
  ca?: string | null;
  tls_client_cert?: string | null;
  tls_client_key?: string | null;
}

/** Largest PEM or known_hosts text accepted. */
export const MAX_PEM_BYTES = 64 * 1024;

function urlProblem(type: RepositoryType, url: string): string | undefined {
  if (type === 'git') {
    const problem = repoURLProblem(url);
    if (problem) return problem.replace('source.git.repoURL', 'url');
    if (/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(url)) return 'url must not carry a password (use password)';
    return undefined;
  }
  const problem = chartRepoURLProblem(url);
  return problem ? problem.replace(/^repoURL/, 'url') : undefined;
}

function pemProblem(field: string, value: string | null | undefined, marker: RegExp): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (!marker.test(value) || Buffer.byteLength(value) > MAX_PEM_BYTES)
    return `${field} must be PEM text, at most 64 KiB`;
  return undefined;
}

/** Problems of the credential fields with respect to the URL. */
function credentialProblems(input: RepositoryInput): string[] {
  const ssh = input.type === 'git' && isSshURL(input.url);
  const problems = [
    pemProblem('ssh_private_key', input.ssh_private_key, /-----BEGIN [A-Z ]*PRIVATE KEY-----/),
    pemProblem('ca', input.ca, /-----BEGIN CERTIFICATE-----/),
    pemProblem('tls_client_cert', input.tls_client_cert, /-----BEGIN CERTIFICATE-----/),
    pemProblem('tls_client_key', input.tls_client_key, /-----BEGIN [A-Z ]*PRIVATE KEY-----/),
  ].filter((p): p is string => p !== undefined);
  if (input.ssh_private_key && !ssh) problems.push('ssh_private_key is for ssh:// or user@host:path URLs');
  if (ssh && (input.password || input.tls_client_key))
    problems.push('an SSH URL takes ssh_private_key, not a password');
  if (!input.tls_client_cert !== !input.tls_client_key) {
    problems.push('tls_client_cert and tls_client_key are set together or not at all');
  }
  if (input.known_hosts && Buffer.byteLength(input.known_hosts) > MAX_PEM_BYTES) {
    problems.push('known_hosts must be at most 64 KiB');
  }
  return problems;
}

/**
 * Checks a repository's fields and its host under the outbound policy. UnprocessableError (422) naming every
 * problem (an OutboundRefusedError, itself a 422, for a host the policy refuses).
 */
export async function checkRepository(input: RepositoryInput, config: Config): Promise<void> {
  if (!(REPOSITORY_TYPES as readonly string[]).includes(input.type))
    throw new UnprocessableError('type must be git or helm');
  const problems: string[] = [];
  const url = urlProblem(input.type, input.url);
  if (url) problems.push(url);
  if (input.insecure === true) {
    if (input.type !== 'helm' || chartRepositoryKind(input.url) !== 'oci') {
      problems.push('insecure (plain http) is for oci:// chart repositories only');
    } else if (config.outbound.requireHttps) {
      problems.push('insecure (plain http) repositories are refused in production mode');
    }
  }
  problems.push(...credentialProblems(input));
  if (problems.length > 0) throw new UnprocessableError(problems.join('; '));
  const host = gitHostOf(input.url.replace(/^oci:/i, 'https:'));
  if (!host) throw new UnprocessableError('url has no host');
  try {
    await checkOutboundHost(host, config.outbound);
  } catch (err) {
    if (err instanceof UnprocessableError) throw err;
    throw new UnprocessableError(`host "${host}" cannot be resolved`, { cause: err });
  }
}
