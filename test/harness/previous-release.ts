import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir, repoRoot } from './paths.ts';

const run = promisify(execFile);

/**
 * The release before the current one, for upgrade tests. This repository's history is its release history: 0.1.0 is
 * commit 87a0a1c, the last before the wave of work that followed it (its schema, its App CRD, its server).
 */
export const PREVIOUS_RELEASE = { version: '0.1.0', commit: '87a0a1c5b531ac1b9ccbb884f8180c1cdee0ceb4' } as const;

function haveCommit(): boolean {
  try {
    execFileSync('git', ['-C', repoRoot, 'cat-file', '-e', `${PREVIOUS_RELEASE.commit}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the previous release cannot be had here, or undefined. A shallow clone (as some CI systems make) is deepened
 * from its origin first, so the upgrade test needs only a reachable origin, not a full clone.
 */
export function previousReleaseMissing(): string | undefined {
  if (haveCommit()) return undefined;
  try {
    const shallow = execFileSync('git', ['-C', repoRoot, 'rev-parse', '--is-shallow-repository'], { encoding: 'utf8' });
    if (shallow.trim() === 'true')
      execFileSync('git', ['-C', repoRoot, 'fetch', '--quiet', '--unshallow'], { stdio: 'ignore' });
  } catch {
    // reported below
  }
  if (haveCommit()) return undefined;
  return `commit ${PREVIOUS_RELEASE.commit} is not in ${repoRoot}'s history (a shallow clone whose origin cannot be deepened?): the previous release is read from it`;
}

/**
 * A runnable checkout of the previous release (its whole tree at that commit, with its production node_modules
 * installed from its own lockfile), built once into the tools cache (`<cache>/release-<version>-<commit>`);
 * resolves with its directory. Run its `bin/svc.js` with a Node ≥ 22.18 (e.g. `process.execPath` under vitest).
 */
export async function previousRelease(): Promise<string> {
  const { version, commit } = PREVIOUS_RELEASE;
  const dir = join(cacheDir(), `release-${version}-${commit.slice(0, 12)}`);
  if (existsSync(join(dir, '.done'))) return dir;
  const work = `${dir}.partial-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    await run('sh', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'sh', repoRoot, commit, work]);
    await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: work,
      maxBuffer: 16 * 1024 * 1024,
    });
    await run('touch', [join(work, '.done')]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`could not build release ${version} (${commit}): ${(err as Error).message}`);
  }
  return dir;
}
