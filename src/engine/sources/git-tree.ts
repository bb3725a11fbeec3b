/**
 * What an AppSet's Git generators read (issue 27 item 1): the directories and the JSON or YAML files of a branch of
 * an org's repository. Through the shared repository cache and the org's repository credentials, by the Git
 * driver's own remote rule (./git.ts `orgRemote`): the operator has one git client. The tree is listed and files
 * are read from the bare repository (`git ls-tree`, `git cat-file`): no checkout.
 */
import { parse } from 'yaml';
import { InputError } from '../../core/errors.ts';
import { gitArgProblems } from '../../core/git-source-args.ts';
import type { RepoCache } from '../../git/index.ts';
import { type GitDriverDeps, orgRemote } from './git.ts';

/** Most files one `gitFiles` generator reads, and the largest one. */
export const MAX_GENERATOR_FILES = 1_000;
export const MAX_GENERATOR_FILE_BYTES = 1024 * 1024;
/** Bound of one tree listing's output. */
const MAX_TREE_BYTES = 64 * 1024 * 1024;

/** A branch of a repository, as an AppSet Git generator names it. */
export interface GitLocation {
  repoURL: string;
  /** Branch (default main). */
  revision?: string | undefined;
  repositoryRef?: string | undefined;
}

/** One revision's tree: directories and files (paths relative to the root, `/`-separated), blob ids by file. */
export interface GitTree {
  commit: string;
  directories: string[];
  files: Map<string, string>;
}

/** What the reader shares with the Git driver. */
export type GitTreeDeps = Pick<GitDriverDeps, 'repos' | 'access' | 'maxFetchAgeMs'>;

/** Reads trees and files of org repositories for AppSet generators. */
export class GitTreeReader {
  readonly #deps: GitTreeDeps;

  constructor(deps: GitTreeDeps) {
    this.#deps = deps;
  }

  /** This reader fetching every branch it reads (after a push: the cached copy is known to be behind). */
  fresh(): GitTreeReader {
    return new GitTreeReader({ ...this.#deps, maxFetchAgeMs: 0 });
  }

  /**
   * The tree at the head of `loc`'s branch, fetched when the cache's copy is older than `maxFetchAgeMs`; with `at`
   * (a branch, tag, commit id or `refs/pull/N/head`: a preview before merge), the tree of the commit `at` names
   * instead of the branch's. Throws InputError for a URL or branch git could misread, GitFetchError / GitRefError
   * from the cache (GitRefError too for an `at` the repository does not have).
   */
  async tree(orgNamespace: string, loc: GitLocation, at?: string): Promise<GitTree> {
    const branch = loc.revision ?? 'main';
    const problems = gitArgProblems({ repoURL: loc.repoURL, branch }, 'generator');
    if (problems.length > 0) throw new InputError(problems.join('; '));
    const remote = orgRemote(orgNamespace, loc, this.#deps.access);
    const repos: RepoCache = this.#deps.repos;
    const maxAgeMs = this.#deps.maxFetchAgeMs;
    const commit =
      at === undefined
        ? await repos.resolveBranch(remote, branch, { maxAgeMs })
        : await repos.resolveRef(remote, at, maxAgeMs);
    const { stdout } = await repos.git(remote, ['ls-tree', '-r', '-t', '-z', '--full-tree', commit], {
      timeoutMs: 60_000,
      // A listing of a vast repository must not hold the process's memory.
      maxOutputBytes: MAX_TREE_BYTES,
    });
    const tree: GitTree = { commit, directories: [], files: new Map() };
    for (const entry of stdout.split('\0')) {
      const tab = entry.indexOf('\t');
      if (tab < 0) continue;
      const [, type, id] = entry.slice(0, tab).split(' ');
      const path = entry.slice(tab + 1);
      if (type === 'tree') tree.directories.push(path);
      else if (type === 'blob' && id) tree.files.set(path, id);
    }
    return tree;
  }

  /**
   * The parsed content of each of `paths` (JSON or YAML) in `loc`'s repository, whose tree is `tree`. InputError
   * naming the file for one too large or not parseable, or more than MAX_GENERATOR_FILES.
   */
  async files(
    orgNamespace: string,
    loc: GitLocation,
    tree: GitTree,
    paths: readonly string[],
  ): Promise<{ path: string; content: unknown }[]> {
    if (paths.length > MAX_GENERATOR_FILES) {
      throw new InputError(`${paths.length} files match, more than ${MAX_GENERATOR_FILES}`);
    }
    const remote = orgRemote(orgNamespace, loc, this.#deps.access);
    const out: { path: string; content: unknown }[] = [];
    for (const path of paths) {
      const id = tree.files.get(path);
      if (!id) continue;
      const { stdout } = await this.#deps.repos
        .git(remote, ['cat-file', 'blob', id], { timeoutMs: 30_000, maxOutputBytes: MAX_GENERATOR_FILE_BYTES })
        .catch((err: unknown) => {
          throw new InputError(`file ${path}: cannot be read (at most ${MAX_GENERATOR_FILE_BYTES} bytes)`, {
            cause: err,
          });
        });
      out.push({ path, content: parseFile(path, stdout) });
    }
    return out;
  }
}

/** A generator file's values: YAML (JSON is YAML), without aliases that expand beyond reason. */
function parseFile(path: string, text: string): unknown {
  try {
    return parse(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new InputError(`file ${path}: not JSON or YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}
