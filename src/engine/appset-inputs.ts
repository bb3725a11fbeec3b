/**
 * What an AppSet's generators read, gathered before generation (src/core/appset-generate.ts is pure and
 * synchronous): the org's registered clusters (over the internal channel for the operator, the store for the API)
 * for `clusters` generators, the tree of each `gitDirectories` generator's branch and the matching files of each
 * `gitFiles` one (the shared repository cache, src/engine/sources/git-tree.ts). Any read that fails fails the whole
 * gathering: an AppSet whose inputs are partly unknown must not delete the Apps of the part it could not read.
 * The operator generates from the generators' branches; a preview before merge (POST /preview) reads one
 * repository at a ref instead (`at`). Shared by both, so a preview generates exactly what the operator would.
 */
import type { GeneratorInputs } from '../core/appset-generate.ts';
import type { ClusterFacts } from '../core/appset-params.ts';
import type { AppSetResource, LeafGenerator } from '../core/appset-schema.ts';
import { describeError } from '../core/errors.ts';
import { globRegExp } from '../core/glob.ts';
import { normalizeRepositoryURL } from '../core/repository.ts';
import { redactURL } from '../git/index.ts';
import type { GitTreeReader } from './sources/index.ts';

/** Where the inputs come from. */
export interface InputSources {
  reader: GitTreeReader;
  /** The registered clusters of the org owning a namespace, with their labels; absent: no channel to the server. */
  clusters?: (orgNamespace: string) => Promise<ClusterFacts[]>;
}

type DirGen = NonNullable<LeafGenerator['gitDirectories']>;
type FileGen = NonNullable<LeafGenerator['gitFiles']>;

/** Every stand-alone generator of the AppSet, the children of matrix and merge included. */
export function leavesOf(appSet: AppSetResource): LeafGenerator[] {
  return appSet.spec.generators.flatMap((g) => (g.matrix ?? g.merge)?.generators ?? [g as LeafGenerator]);
}

/** True when the AppSet reads something that changes without it changing (Git, clusters): it is re-run periodically. */
export function readsOutside(appSet: AppSetResource): boolean {
  return leavesOf(appSet).some((g) => g.clusters || g.gitDirectories || g.gitFiles);
}

/** A generator's failure, named as the status shows it (the read's own error is its `cause`). */
export class GeneratorReadError extends Error {}

/** A repository URL as previews compare them: normalized (host case, credentials) and without `.git`. */
export function repositoryKey(url: string): string {
  return normalizeRepositoryURL(url).replace(/\.git$/, '');
}

/** A repository read at a ref rather than at the generators' branches (a preview before merge). */
export interface ReadAt {
  /** The repository, as repositoryKey answers it. */
  repository: string;
  /** A branch, tag, commit id or `refs/pull/N/head` of it. */
  revision: string;
}

/** The ref to read `repoURL` at: `at`'s when it is `at`'s repository, else its branch (undefined). */
function refFor(repoURL: string, at: ReadAt | undefined): string | undefined {
  return at && repositoryKey(repoURL) === at.repository ? at.revision : undefined;
}

/** The Git generators' repositories of `appSet`, as repositoryKey answers them. */
export function gitRepositoriesOf(appSet: AppSetResource): Set<string> {
  const urls = leavesOf(appSet).flatMap((g) => {
    const git = g.gitDirectories ?? g.gitFiles;
    return git ? [repositoryKey(git.repoURL)] : [];
  });
  return new Set(urls);
}

/** The org's clusters when some generator selects clusters, else none read. */
async function clustersFor(org: string, leaves: LeafGenerator[], sources: InputSources): Promise<ClusterFacts[]> {
  if (!leaves.some((g) => g.clusters)) return [];
  if (!sources.clusters) throw new GeneratorReadError('clusters: the operator has no channel to the server');
  return sources.clusters(org).catch((err: unknown) => {
    throw new GeneratorReadError(`clusters: ${describeError(err)}`, { cause: err });
  });
}

/**
 * The inputs of `appSet`'s generators; throws a GeneratorReadError naming the generator that could not be read.
 * With `at`, the Git generators of that repository read it at that ref (whatever branch they name).
 */
export async function gatherInputs(
  appSet: AppSetResource,
  sources: InputSources,
  at?: ReadAt,
): Promise<GeneratorInputs> {
  const org = appSet.metadata.namespace ?? '';
  const leaves = leavesOf(appSet);
  const directories = new Map<DirGen, string[]>();
  const files = new Map<FileGen, { path: string; content: unknown }[]>();
  const clusters = await clustersFor(org, leaves, sources);
  for (const g of leaves) {
    const git = g.gitDirectories ?? g.gitFiles;
    if (!git) continue;
    // A URL may carry a password: the status and the logs never show it.
    const what = `${g.gitDirectories ? 'gitDirectories' : 'gitFiles'} ${redactURL(git.repoURL)}`;
    try {
      const tree = await sources.reader.tree(org, git, refFor(git.repoURL, at));
      if (g.gitDirectories) directories.set(g.gitDirectories, tree.directories);
      if (g.gitFiles) {
        const globs = g.gitFiles.files.map((f) => globRegExp(f.path));
        const paths = [...tree.files.keys()].filter((p) => globs.some((re) => re.test(p))).sort();
        files.set(g.gitFiles, await sources.reader.files(org, g.gitFiles, tree, paths));
      }
    } catch (err) {
      throw new GeneratorReadError(`${what}: ${describeError(err)}`, { cause: err });
    }
  }
  return {
    clusters,
    directories: (g) => directories.get(g) ?? [],
    files: (g) => files.get(g) ?? [],
  };
}
