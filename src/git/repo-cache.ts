/**
 * One bare repository per remote URL and scope (the org whose Apps use it), shared by every App of that scope that
 * uses the URL. Fetches of one repository are single-flight: concurrent callers share one fetch, and a fetch
 * younger than `maxAgeMs` serves callers that accept it, so N Apps on one repository cost one fetch per sync
 * period, not N.
 *
 * Scopes keep orgs apart: the same URL fetched by two orgs (with different credentials, or one with and one
 * without) is two repositories on disk, so no org ever reads what only another org's credentials could fetch.
 * Credentials are asked for when a fetch actually runs (a rotated password is used by the next fetch) and handed
 * to git for that fetch only (./credentials.ts).
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RepositoryCredentials } from '../core/repository.ts';
import { type GitAccess, NO_ACCESS, withGitAccess } from './credentials.ts';
import { classifyGitFailure, GitFetchError, GitRefError, redactURL } from './errors.ts';
import { ExecError, execFile } from './exec.ts';

/**
 * A remote as the cache sees it: its URL, the scope (org) it is fetched for, and where its credentials come from
 * (asked at each fetch that runs; undefined or an undefined answer: anonymous). A bare string is a URL of no scope.
 */
export interface GitRemote {
  url: string;
  scope?: string;
  credentials?: () => Promise<RepositoryCredentials | undefined>;
}

/** A remote given as a URL or a GitRemote. */
export type RemoteRef = string | GitRemote;

function remoteOf(ref: RemoteRef): GitRemote {
  return typeof ref === 'string' ? { url: ref } : ref;
}

/** The cache key of a remote: its URL within its scope. */
function keyOf(remote: GitRemote): string {
  return remote.scope ? `${remote.scope}\n${remote.url}` : remote.url;
}

export interface RepoCacheOptions {
  /** Directory holding one bare repository per URL. */
  dir: string;
  /** The git executable (default `git` from PATH). */
  gitBin?: string;
  /** Timeout of one fetch (default 120 s). */
  fetchTimeoutMs?: number;
  /**
   * Checked before every fetch or ls-remote of a URL (the outbound address policy, src/net): a rejection stops it
   * before git runs and becomes the GitFetchError's cause.
   */
  guard?: (url: string) => Promise<void>;
}

export interface FetchOptions {
  /** A completed fetch younger than this is reused (default 0: always fetch, joining one already running). */
  maxAgeMs?: number;
  /**
   * A completed fetch that started at or after this time (ms since the epoch) is reused: it saw everything pushed
   * before then. Lets many operations requested at one moment share one fetch.
   */
  startedAfter?: number;
}

/** A commit as the history shows it: subject line, author name and author date (ISO 8601). */
export interface CommitInfo {
  subject: string;
  author: string;
  date: string;
}

/** A full commit id (SHA-1 or SHA-256): the only revisions `commits` passes to git. */
const FULL_COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Field and record separators of `commits`' log format (%x1f, %x1e: bytes no subject line or name carries). */
const FIELD = '\x1f';
const RECORD = '\x1e';

/** Git config passed to every command: never prompt for credentials (public repositories only). */
const NO_PROMPT = ['-c', 'core.askPass=true', '-c', 'credential.helper='];

/** A shared, on-disk cache of bare git repositories keyed by remote URL. */
export class RepoCache {
  readonly #dir: string;
  readonly #git: string;
  readonly #fetchTimeoutMs: number;
  readonly #guard: ((url: string) => Promise<void>) | undefined;
  readonly #inflight = new Map<string, Promise<void>>();
  /** When the running fetch of a URL started. */
  readonly #inflightStartedAt = new Map<string, number>();
  readonly #fetchedAt = new Map<string, number>();
  /** Every branch and tag of a URL (full ref name → commit id), read once after each fetch. */
  readonly #refs = new Map<string, Map<string, string>>();
  /** How many fetches actually ran, by URL (for tests and metrics). */
  readonly fetchCount = new Map<string, number>();

  constructor(options: RepoCacheOptions) {
    this.#dir = options.dir;
    this.#git = options.gitBin ?? 'git';
    this.#fetchTimeoutMs = options.fetchTimeoutMs ?? 120_000;
    this.#guard = options.guard;
  }

  /** The git executable this cache runs. */
  get gitBin(): string {
    return this.#git;
  }

  /** The bare repository directory of a remote (stable across restarts). */
  repoDir(ref: RemoteRef): string {
    return join(
      this.#dir,
      createHash('sha256')
        .update(keyOf(remoteOf(ref)))
        .digest('hex')
        .slice(0, 24),
    );
  }

  /** Runs git with the given arguments inside the bare repository of the remote. */
  async git(
    ref: RemoteRef,
    args: readonly string[],
    options: { input?: string; timeoutMs?: number; maxOutputBytes?: number; access?: GitAccess } = {},
  ) {
    const access = options.access ?? NO_ACCESS;
    return execFile(this.#git, [...NO_PROMPT, ...access.config, '--git-dir', this.repoDir(ref), ...args], {
      ...options,
      env: access.env,
    });
  }

  /**
   * Lists the remote's branches and tags without fetching (`git ls-remote`), with its credentials: what a
   * repository test asks. Resolves with the number of refs; GitFetchError (with its errorClass) otherwise.
   */
  async lsRemote(ref: RemoteRef, timeoutMs = 30_000): Promise<number> {
    const remote = remoteOf(ref);
    await this.#check(remote.url);
    const credentials = await remote.credentials?.();
    try {
      const { stdout } = await withGitAccess(remote.url, credentials, (access) =>
        execFile(this.#git, [...NO_PROMPT, ...access.config, 'ls-remote', '--heads', '--tags', '--', remote.url], {
          timeoutMs,
          env: access.env,
        }),
      );
      return stdout.split('\n').filter((l) => l.trim() !== '').length;
    } catch (err) {
      throw fetchError(remote.url, err);
    }
  }

  /** The guard's verdict on `url`, as a GitFetchError naming the refusal. */
  async #check(url: string): Promise<void> {
    if (!this.#guard) return;
    try {
      await this.#guard(url);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new GitFetchError(`cannot fetch ${redactURL(url)}: ${why}`, { cause: err, errorClass: 'refused' });
    }
  }

  /**
   * Brings the bare repository of the remote up to date with its branches and tags. Concurrent calls share one
   * fetch; a fetch finished less than `maxAgeMs` ago satisfies the call. Throws GitFetchError.
   */
  fetch(ref: RemoteRef, options: FetchOptions = {}): Promise<void> {
    const remote = remoteOf(ref);
    const key = keyOf(remote);
    const running = this.#inflight.get(key);
    if (running) {
      // A fetch that started before `startedAfter` may have missed what the caller needs: fetch once more after it.
      const startedAt = this.#inflightStartedAt.get(key) ?? 0;
      if (options.startedAfter !== undefined && startedAt < options.startedAfter) {
        return running.then(() => this.fetch(remote, options));
      }
      return running;
    }
    const last = this.#fetchedAt.get(key);
    if (last !== undefined && options.maxAgeMs && Date.now() - last < options.maxAgeMs) return Promise.resolve();
    if (last !== undefined && options.startedAfter !== undefined && last >= options.startedAfter) {
      return Promise.resolve();
    }
    const p = this.#doFetch(remote).finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, p);
    this.#inflightStartedAt.set(key, Date.now());
    return p;
  }

  async #doFetch(remote: GitRemote): Promise<void> {
    const key = keyOf(remote);
    const { url } = remote;
    const dir = this.repoDir(remote);
    const started = Date.now();
    await this.#check(url);
    if (!(await exists(join(dir, 'HEAD')))) {
      await mkdir(dir, { recursive: true });
      await execFile(this.#git, ['init', '--bare', '--quiet', dir]);
    }
    this.fetchCount.set(url, (this.fetchCount.get(url) ?? 0) + 1);
    try {
      const credentials = await remote.credentials?.();
      await withGitAccess(url, credentials, (access) =>
        this.git(
          remote,
          [
            'fetch',
            '--quiet',
            '--prune',
            '--force',
            '--no-tags',
            // The URL is a positional after `--`: even one that slipped past the repoURL rule is never an option.
            '--',
            url,
            '+refs/heads/*:refs/heads/*',
            '+refs/tags/*:refs/tags/*',
          ],
          { timeoutMs: this.#fetchTimeoutMs, access },
        ),
      );
    } catch (err) {
      throw fetchError(url, err);
    }
    this.#refs.set(key, await this.#readRefs(remote));
    this.#fetchedAt.set(key, started);
  }

  /** The refs of the bare repository of `url`: one `git for-each-ref`, tags peeled to their commit. */
  async #readRefs(remote: GitRemote): Promise<Map<string, string>> {
    const { stdout } = await this.git(remote, [
      'for-each-ref',
      '--format=%(objectname) %(*objectname) %(refname)',
      'refs/heads',
      'refs/tags',
    ]);
    return parseRefs(stdout);
  }

  /**
   * The ref map of `url` as of its last fetch (full ref name → commit id), or undefined before the first fetch of
   * this process.
   */
  refs(ref: RemoteRef): ReadonlyMap<string, string> | undefined {
    return this.#refs.get(keyOf(remoteOf(ref)));
  }

  /**
   * Removes cached repositories not fetched for `maxIdleMs` (no App uses their URL any more, or it moved). A
   * repository is only removed when no fetch of it is running; the next use simply fetches it again.
   * Returns the number removed.
   */
  async sweep(maxIdleMs: number): Promise<number> {
    const dirOfKey = (key: string) => join(this.#dir, createHash('sha256').update(key).digest('hex').slice(0, 24));
    const busy = new Set([...this.#inflight.keys()].map(dirOfKey));
    const removed = new Set<string>();
    let entries: string[];
    try {
      entries = await readdir(this.#dir);
    } catch {
      return 0;
    }
    for (const name of entries) {
      const dir = join(this.#dir, name);
      if (busy.has(dir)) continue;
      const last = await stat(join(dir, 'FETCH_HEAD'))
        .catch(() => stat(dir))
        .then((s) => s.mtimeMs)
        .catch(() => undefined);
      if (last === undefined || Date.now() - last < maxIdleMs) continue;
      await rm(dir, { recursive: true, force: true });
      removed.add(dir);
    }
    for (const key of [...this.#fetchedAt.keys()]) {
      if (!removed.has(dirOfKey(key))) continue;
      this.#fetchedAt.delete(key);
      this.#refs.delete(key);
    }
    return removed.size;
  }

  /**
   * The commit a branch points at after a fetch, answered from the ref map read by that fetch (no process per
   * call). Throws GitFetchError, or GitRefError for an unknown branch.
   */
  async resolveBranch(ref: RemoteRef, branch: string, options: FetchOptions = {}): Promise<string> {
    const remote = remoteOf(ref);
    await this.fetch(remote, options);
    const refs = this.#refs.get(keyOf(remote));
    const sha = refs ? refs.get(`refs/heads/${branch}`) : await this.#revParse(remote, `refs/heads/${branch}`);
    if (!sha) throw new GitRefError(`branch "${branch}" not found in ${redactURL(remote.url)}`);
    return sha;
  }

  /**
   * The full commit id of `revision` (a commit id, possibly abbreviated, or a tag), fetching when it is not in the
   * cache yet. Throws GitRefError when the remote does not have it either.
   */
  async resolveRevision(ref: RemoteRef, revision: string): Promise<string> {
    if (!/^[\w./-]+$/.test(revision) || revision.startsWith('-')) {
      throw new GitRefError(`invalid revision "${revision}"`);
    }
    const remote = remoteOf(ref);
    const cached = (await exists(join(this.repoDir(remote), 'HEAD')))
      ? await this.#revParse(remote, revision)
      : undefined;
    if (cached) return cached;
    await this.fetch(remote);
    const sha = await this.#revParse(remote, revision);
    if (!sha) throw new GitRefError(`revision "${revision}" not found in ${redactURL(remote.url)}`);
    return sha;
  }

  /**
   * The commit `revision` names on the remote now, for a preview of a ref that is not the App's branch: a branch
   * name, a tag, a full ref name (`refs/heads/x`, `refs/pull/N/head`, `refs/merge-requests/N/head`) or a commit id
   * (possibly abbreviated). Branches and tags are read from a fetch no older than `maxAgeMs`; any other full ref is
   * fetched alone (the usual fetch takes heads and tags only, and a pull request's ref moves with every push), into
   * the same name, which `--prune` of the usual fetch never touches. Throws GitRefError when the remote has no such
   * ref or commit, GitFetchError when it cannot be reached.
   */
  async resolveRef(ref: RemoteRef, revision: string, maxAgeMs = 0): Promise<string> {
    if (!/^[\w./-]+$/.test(revision) || revision.startsWith('-') || revision.includes('..')) {
      throw new GitRefError(`invalid revision "${revision}"`);
    }
    const remote = remoteOf(ref);
    await this.fetch(remote, { maxAgeMs });
    const refs = this.#refs.get(keyOf(remote));
    for (const name of [revision, `refs/heads/${revision}`, `refs/tags/${revision}`]) {
      const sha = refs?.get(name);
      if (sha) return sha;
    }
    if (revision.startsWith('refs/')) return this.#fetchOne(remote, revision);
    return this.resolveRevision(remote, revision);
  }

  /** Fetches the single ref `name` of the remote into the same name and answers its commit. */
  async #fetchOne(remote: GitRemote, name: string): Promise<string> {
    const { url } = remote;
    try {
      const credentials = await remote.credentials?.();
      await withGitAccess(url, credentials, (access) =>
        this.git(remote, ['fetch', '--quiet', '--force', '--no-tags', '--', url, `+${name}:${name}`], {
          timeoutMs: this.#fetchTimeoutMs,
          access,
        }),
      );
    } catch (err) {
      const stderr = err instanceof ExecError ? err.stderr : String(err);
      // git's words for a ref the remote does not have: the caller named a ref that is not there.
      if (/couldn't find remote ref|invalid refspec|is not a valid ref name/i.test(stderr)) {
        throw new GitRefError(`ref "${name}" not found in ${redactURL(url)}`);
      }
      throw fetchError(url, err);
    }
    const sha = await this.#revParse(remote, name);
    if (!sha) throw new GitRefError(`ref "${name}" not found in ${redactURL(url)}`);
    return sha;
  }

  /**
   * Subject, author and author date of each of the commits `ids` (full commit ids; anything else is left out) in the
   * repository of `ref`, by commit id. The repository is fetched first when this process has not fetched it, else once
   * more (a fetch younger than `maxAgeMs` serves) when some are missing; commits the remote does not have either are
   * left out. One `git log` per read. Throws GitFetchError when a needed fetch fails.
   */
  async commits(ref: RemoteRef, ids: readonly string[], maxAgeMs = 0): Promise<Map<string, CommitInfo>> {
    const wanted = [...new Set(ids.filter((id) => FULL_COMMIT_ID.test(id)))];
    if (wanted.length === 0) return new Map();
    const unfetched = !this.#fetchedAt.has(keyOf(remoteOf(ref))) || !(await exists(join(this.repoDir(ref), 'HEAD')));
    if (unfetched) await this.fetch(ref, { maxAgeMs });
    let found = await this.#log(ref, wanted);
    if (found.size < wanted.length && !unfetched) {
      await this.fetch(ref, { maxAgeMs });
      found = await this.#log(ref, wanted);
    }
    return found;
  }

  /** `git log` of exactly `ids` (no walk; ids the repository lacks are skipped), parsed. */
  async #log(ref: RemoteRef, ids: readonly string[]): Promise<Map<string, CommitInfo>> {
    const format = '--format=%H%x1f%an%x1f%aI%x1f%s%x1e';
    const { stdout } = await this.git(ref, ['log', '--no-walk=unsorted', '--ignore-missing', format, ...ids]);
    const commits = new Map<string, CommitInfo>();
    for (const record of stdout.split(RECORD)) {
      const [id, author, date, subject] = record.trim().split(FIELD);
      if (id && author !== undefined && date !== undefined && subject !== undefined) {
        commits.set(id, { subject, author, date });
      }
    }
    return commits;
  }

  async #revParse(remote: GitRemote, ref: string): Promise<string | undefined> {
    try {
      const { stdout } = await this.git(remote, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
      return stdout.trim() || undefined;
    } catch {
      return undefined;
    }
  }
}

/** A failed fetch or ls-remote as a GitFetchError: its class and svc's sentence for it, the URL without a password. */
function fetchError(url: string, err: unknown): GitFetchError {
  if (err instanceof GitFetchError) return err;
  const stderr = err instanceof ExecError ? err.stderr : String(err);
  const { errorClass, sentence } = classifyGitFailure(stderr);
  return new GitFetchError(`cannot fetch ${redactURL(url)}: ${sentence}`, { cause: err, errorClass });
}

/**
 * Parses `git for-each-ref --format='%(objectname) %(*objectname) %(refname)'`: one ref per line; an annotated
 * tag carries its peeled commit in the second field, everything else leaves it empty.
 */
export function parseRefs(text: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [object, peeled, name] = line.trim().split(' ');
    if (!object || name === undefined) continue;
    refs.set(name, peeled || object);
  }
  return refs;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
