/**
 * Errors of the git layer. Each says whether retrying can help: an unreachable remote is transient, an unknown
 * branch or a path escaping the repository needs the user to change the App.
 */
import { InputError, UpstreamError } from '../core/errors.ts';

/** The remote could not be fetched (network, missing repository, authentication required). Transient. */
export class GitFetchError extends UpstreamError {}

/** The branch or revision does not exist in the repository. */
export class GitRefError extends InputError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, retry: 'wait' });
  }
}

/** `source.git.path` (or a symlink inside it) points outside the repository. */
export class GitPathError extends InputError {}
