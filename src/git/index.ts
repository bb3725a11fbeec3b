/** Git sources: a shared bare-repository cache per URL and exact-revision checkouts. */
export {
  type Checkout,
  exportRevision,
  isDirectory,
  isWithin,
  memoryBackedDir,
  removeEscapingSymlinks,
  resolveInside,
} from './checkout.ts';
export { type GitAccess, httpOrigin, isSshURL, withGitAccess } from './credentials.ts';
export {
  classifyGitFailure,
  type GitFailureClass,
  GitFetchError,
  GitPathError,
  GitRefError,
  redactURL,
} from './errors.ts';
export { ExecError, execFile } from './exec.ts';
export { type FetchOptions, type GitRemote, type RemoteRef, RepoCache, type RepoCacheOptions } from './repo-cache.ts';
