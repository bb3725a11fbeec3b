/**
 * Errors of the git layer. Each says whether retrying can help: an unreachable remote is transient, an unknown
 * branch or a path escaping the repository needs the user to change the App.
 */
import { InputError, UpstreamError } from '../core/errors.ts';

/**
 * The remote could not be fetched (network, missing repository, authentication required). Transient.
 * `errorClass` says which kind of failure it was (classifyGitFailure).
 */
export class GitFetchError extends UpstreamError {
  readonly errorClass: GitFailureClass;
  constructor(message: string, options: { cause?: unknown; errorClass?: GitFailureClass } = {}) {
    const errorClass = options.errorClass ?? 'provider';
    // Refused credentials, an unknown host key or a missing repository need a change somewhere: no fast retries.
    const retry = ['auth', 'hostkey', 'notfound'].includes(errorClass) ? 'wait' : 'retry';
    super(message, { retry, ...(options.cause === undefined ? {} : { cause: options.cause }) });
    this.errorClass = errorClass;
  }
}

/** The branch or revision does not exist in the repository. */
export class GitRefError extends InputError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, retry: 'wait' });
  }
}

/** `source.git.path` (or a symlink inside it) points outside the repository. */
export class GitPathError extends InputError {}

/** What kind of failure a git remote operation was: the classes of src/net's classification plus SSH's own. */
export type GitFailureClass =
  | 'dns'
  | 'tls'
  | 'connect'
  | 'timeout'
  | 'refused'
  | 'auth'
  | 'hostkey'
  | 'notfound'
  | 'provider';

/** git's and ssh's words for each failure (their last stderr lines), and what svc says instead. */
const FAILURES: [RegExp, GitFailureClass, string][] = [
  [
    /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|No \S+ host key is known/i,
    'hostkey',
    "the SSH host key is not in the repository's known_hosts (svc never trusts a host key on first use)",
  ],
  [/Permission denied \(publickey|Load key .*: invalid format|invalid format/i, 'auth', 'the SSH key was refused'],
  [
    /Authentication failed|could not read Username|could not read Password|terminal prompts disabled|HTTP 401|returned error: 401/i,
    'auth',
    'authentication failed (the user name or password is wrong, or the repository needs credentials)',
  ],
  [/returned error: 403|HTTP 403/i, 'auth', 'access denied (403)'],
  [
    /repository '.*' not found|returned error: 404|does not appear to be a git repository|Repository not found/i,
    'notfound',
    'repository not found',
  ],
  [
    /Could not resolve host|Name or service not known|Temporary failure in name resolution/i,
    'dns',
    'host name could not be resolved',
  ],
  [
    /SSL certificate problem|server certificate verification failed|SSL_ERROR|unable to get local issuer|certificate/i,
    'tls',
    'TLS handshake failed (certificate not trusted or invalid)',
  ],
  [
    /Connection refused|Failed to connect|Couldn't connect|Could not connect/i,
    'connect',
    'connection refused (nothing answers there)',
  ],
  [/Connection timed out|Operation timed out|timed out after/i, 'timeout', 'timed out'],
  [
    /No route to host|Network is unreachable|Connection reset|Connection closed|unexpected disconnect/i,
    'connect',
    'connection failed',
  ],
];

/** The class of a failed git remote operation and svc's sentence for it, from git's stderr. */
export function classifyGitFailure(stderr: string): { errorClass: GitFailureClass; sentence: string } {
  for (const [pattern, errorClass, sentence] of FAILURES) {
    if (pattern.test(stderr)) return { errorClass, sentence };
  }
  const lines = stderr
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '');
  return { errorClass: 'provider', sentence: (lines.at(-1) ?? 'unknown error').replace(/^fatal:\s*/, '') };
}

/** `url` without a password in its user part (what messages may show). */
export function redactURL(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}
