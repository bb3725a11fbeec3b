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
export { GitFetchError, GitPathError, GitRefError } from './errors.ts';
export { ExecError, execFile } from './exec.ts';
export { type CommitInfo, type FetchOptions, RepoCache, type RepoCacheOptions } from './repo-cache.ts';
