/**
 * What an AppSet's generators read, gathered before generation (src/core/appset-generate.ts is pure and
 * synchronous): the org's registered clusters (over the internal channel) for `clusters` generators, the tree of
 * each `gitDirectories` generator's branch and the matching files of each `gitFiles` one (the shared repository
 * cache, src/engine/sources/git-tree.ts). Any read that fails fails the whole gathering: an AppSet whose inputs are
 * partly unknown must not delete the Apps of the part it could not read.
 */
import type { GeneratorInputs } from '../../core/appset-generate.ts';
import { globRegExp } from '../../core/appset-generate.ts';
import type { ClusterFacts } from '../../core/appset-params.ts';
import type { AppSetResource, LeafGenerator } from '../../core/appset-schema.ts';
import { describeError } from '../../core/errors.ts';
import type { GitTreeReader } from '../../engine/sources/index.ts';
import { redactURL } from '../../git/index.ts';

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

/** A generator's failure, named as the status shows it. */
class GeneratorReadError extends Error {}

/** The org's clusters when some generator selects clusters, else none read. */
async function clustersFor(org: string, leaves: LeafGenerator[], sources: InputSources): Promise<ClusterFacts[]> {
  if (!leaves.some((g) => g.clusters)) return [];
  if (!sources.clusters) throw new GeneratorReadError('clusters: the operator has no channel to the server');
  return sources.clusters(org).catch((err: unknown) => {
    throw new GeneratorReadError(`clusters: ${describeError(err)}`);
  });
}

/** The inputs of `appSet`'s generators; throws an Error naming the generator that could not be read. */
export async function gatherInputs(appSet: AppSetResource, sources: InputSources): Promise<GeneratorInputs> {
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
      const tree = await sources.reader.tree(org, git);
      if (g.gitDirectories) directories.set(g.gitDirectories, tree.directories);
      if (g.gitFiles) {
        const globs = g.gitFiles.files.map((f) => globRegExp(f.path));
        const paths = [...tree.files.keys()].filter((p) => globs.some((re) => re.test(p))).sort();
        files.set(g.gitFiles, await sources.reader.files(org, g.gitFiles, tree, paths));
      }
    } catch (err) {
      throw new GeneratorReadError(`${what}: ${describeError(err)}`);
    }
  }
  return {
    clusters,
    directories: (g) => directories.get(g) ?? [],
    files: (g) => files.get(g) ?? [],
  };
}
