/**
 * One bare repository per remote URL, shared by every App that uses the URL. Fetches of one URL are
 * single-flight: concurrent callers share one fetch, and a fetch younger than `maxAgeMs` serves callers that
 * accept it, so N Apps on one repository cost one fetch per sync period, not N.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { GitFetchError, GitRefError } from './errors.ts';
import { ExecError, execFile, lastLine } from './exec.ts';

export interface RepoCacheOptions {
  /** Directory holding one bare repository per URL. */
  dir: string;
  /** The git executable (default `git` from PATH). */
  gitBin?: string;
  /** Timeout of one fetch (default 120 s). */
  fetchTimeoutMs?: number;
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
  }

  /** The git executable this cache runs. */
  get gitBin(): string {
    return this.#git;
  }

  /** The bare repository directory of a URL (stable across restarts). */
  repoDir(url: string): string {
    return join(this.#dir, createHash('sha256').update(url).digest('hex').slice(0, 24));
  }

  /** Runs git with the given arguments inside the bare repository of `url`. */
  async git(url: string, args: readonly string[], options: { input?: string; timeoutMs?: number } = {}) {
    return execFile(this.#git, [...NO_PROMPT, '--git-dir', this.repoDir(url), ...args], options);
  }

  /**
   * Brings the bare repository of `url` up to date with the remote's branches and tags. Concurrent calls share
   * one fetch; a fetch finished less than `maxAgeMs` ago satisfies the call. Throws GitFetchError.
   */
  fetch(url: string, options: FetchOptions = {}): Promise<void> {
    const running = this.#inflight.get(url);
    if (running) {
      // A fetch that started before `startedAfter` may have missed what the caller needs: fetch once more after it.
      const startedAt = this.#inflightStartedAt.get(url) ?? 0;
      if (options.startedAfter !== undefined && startedAt < options.startedAfter) {
        return running.then(() => this.fetch(url, options));
      }
      return running;
    }
    const last = this.#fetchedAt.get(url);
    if (last !== undefined && options.maxAgeMs && Date.now() - last < options.maxAgeMs) return Promise.resolve();
    if (last !== undefined && options.startedAfter !== undefined && last >= options.startedAfter) {
      return Promise.resolve();
    }
    const p = this.#doFetch(url).finally(() => this.#inflight.delete(url));
    this.#inflight.set(url, p);
    this.#inflightStartedAt.set(url, Date.now());
    return p;
  }

  async #doFetch(url: string): Promise<void> {
    const dir = this.repoDir(url);
    const started = Date.now();
    if (!(await exists(join(dir, 'HEAD')))) {
      await mkdir(dir, { recursive: true });
      await execFile(this.#git, ['init', '--bare', '--quiet', dir]);
    }
    this.fetchCount.set(url, (this.fetchCount.get(url) ?? 0) + 1);
    try {
      await this.git(
        url,
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
        { timeoutMs: this.#fetchTimeoutMs },
      );
    } catch (err) {
      const why = err instanceof ExecError ? lastLine(err.stderr).replace(/^fatal:\s*/, '') : String(err);
      throw new GitFetchError(`cannot fetch ${url}: ${why}`, { cause: err });
    }
    this.#refs.set(url, await this.#readRefs(url));
    this.#fetchedAt.set(url, started);
  }

  /** The refs of the bare repository of `url`: one `git for-each-ref`, tags peeled to their commit. */
  async #readRefs(url: string): Promise<Map<string, string>> {
    const { stdout } = await this.git(url, [
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
  refs(url: string): ReadonlyMap<string, string> | undefined {
    return this.#refs.get(url);
  }

  /**
   * Removes cached repositories not fetched for `maxIdleMs` (no App uses their URL any more, or it moved). A
   * repository is only removed when no fetch of it is running; the next use simply fetches it again.
   * Returns the number removed.
   */
  async sweep(maxIdleMs: number): Promise<number> {
    const busy = new Set([...this.#inflight.keys()].map((url) => this.repoDir(url)));
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
    for (const url of [...this.#fetchedAt.keys()]) {
      if (!removed.has(this.repoDir(url))) continue;
      this.#fetchedAt.delete(url);
      this.#refs.delete(url);
    }
    return removed.size;
  }

  /**
   * The commit a branch points at after a fetch, answered from the ref map read by that fetch (no process per
   * call). Throws GitFetchError, or GitRefError for an unknown branch.
   */
  async resolveBranch(url: string, branch: string, options: FetchOptions = {}): Promise<string> {
    await this.fetch(url, options);
    const refs = this.#refs.get(url);
    const sha = refs ? refs.get(`refs/heads/${branch}`) : await this.#revParse(url, `refs/heads/${branch}`);
    if (!sha) throw new GitRefError(`branch "${branch}" not found in ${url}`);
    return sha;
  }

  /**
   * The full commit id of `revision` (a commit id, possibly abbreviated, or a tag), fetching when it is not in the
   * cache yet. Throws GitRefError when the remote does not have it either.
   */
  async resolveRevision(url: string, revision: string): Promise<string> {
    if (!/^[\w./-]+$/.test(revision) || revision.startsWith('-')) {
      throw new GitRefError(`invalid revision "${revision}"`);
    }
    const cached = (await exists(join(this.repoDir(url), 'HEAD'))) ? await this.#revParse(url, revision) : undefined;
    if (cached) return cached;
    await this.fetch(url);
    const sha = await this.#revParse(url, revision);
    if (!sha) throw new GitRefError(`revision "${revision}" not found in ${url}`);
    return sha;
  }

  /**
   * Subject, author and author date of each of the commits `ids` (full commit ids; anything else is left out) in the
   * repository of `url`, by commit id. The repository is fetched first when this process has not fetched it, else once
   * more (a fetch younger than `maxAgeMs` serves) when some are missing; commits the remote does not have either are
   * left out. One `git log` per read. Throws GitFetchError when a needed fetch fails.
   */
  async commits(url: string, ids: readonly string[], maxAgeMs = 0): Promise<Map<string, CommitInfo>> {
    const wanted = [...new Set(ids.filter((id) => FULL_COMMIT_ID.test(id)))];
    if (wanted.length === 0) return new Map();
    const unfetched = !this.#fetchedAt.has(url) || !(await exists(join(this.repoDir(url), 'HEAD')));
    if (unfetched) await this.fetch(url, { maxAgeMs });
    let found = await this.#log(url, wanted);
    if (found.size < wanted.length && !unfetched) {
      await this.fetch(url, { maxAgeMs });
      found = await this.#log(url, wanted);
    }
    return found;
  }

  /** `git log` of exactly `ids` (no walk; ids the repository lacks are skipped), parsed. */
  async #log(url: string, ids: readonly string[]): Promise<Map<string, CommitInfo>> {
    const format = '--format=%H%x1f%an%x1f%aI%x1f%s%x1e';
    const { stdout } = await this.git(url, ['log', '--no-walk=unsorted', '--ignore-missing', format, ...ids]);
    const commits = new Map<string, CommitInfo>();
    for (const record of stdout.split(RECORD)) {
      const [id, author, date, subject] = record.trim().split(FIELD);
      if (id && author !== undefined && date !== undefined && subject !== undefined) {
        commits.set(id, { subject, author, date });
      }
    }
    return commits;
  }

  async #revParse(url: string, ref: string): Promise<string | undefined> {
    try {
      const { stdout } = await this.git(url, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
      return stdout.trim() || undefined;
    } catch {
      return undefined;
    }
  }
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
