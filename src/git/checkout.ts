/**
 * Exact-revision checkouts: a commit of a cached repository exported into a fresh temporary directory with
 * `git archive` (no .git inside, nothing shared with other checkouts), and safe resolution of paths inside it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { inSpan } from '../trace.ts';
import { GitPathError } from './errors.ts';
import { childEnvironment } from './exec.ts';

export { memoryBackedDir } from './memory.ts';

import type { RemoteRef, RepoCache } from './repo-cache.ts';

/** A revision exported to disk. `dispose` removes it. */
export interface Checkout {
  /** Root of the exported tree. */
  root: string;
  revision: string;
  dispose(): Promise<void>;
}

/** Bounds of one export: its size (the tar stream, about the tree's size on disk) and how long it may take. */
export interface ExportBounds {
  maxBytes: number;
  timeoutMs: number;
  /** What raises each bound, named in the error. */
  settings: { maxBytes: string; timeoutMs: string };
}

/**
 * Exports the full commit `revision` (already in the cache, see RepoCache.resolveRevision) of `url` into a new
 * temporary directory under `workDir` (default the OS temp dir). With `bounds`, an export larger or slower than
 * them is stopped and removed, and the error names the setting to raise (a hostile or huge repository cannot fill
 * the operator's disk).
 */
export async function exportRevision(
  cache: RepoCache,
  url: RemoteRef,
  revision: string,
  workDir: string = tmpdir(),
  bounds?: ExportBounds,
): Promise<Checkout> {
  const root = await mkdtemp(join(workDir, 'svc-checkout-'));
  const dispose = () => rm(root, { recursive: true, force: true });
  try {
    await inSpan('exec git archive', { 'process.executable.name': 'git' }, () =>
      pipeArchive(cache.gitBin, cache.repoDir(url), revision, root, bounds),
    );
    await removeEscapingSymlinks(root);
  } catch (err) {
    await dispose();
    throw err;
  }
  return { root, revision, dispose };
}

/**
 * Deletes every symlink in the tree that points outside it (or nowhere). Renderers follow symlinks (kustomize and
 * helm included), so a repository must never be able to pull the operator's own files (service-account token,
 * caches) into a rendered object.
 */
export async function removeEscapingSymlinks(root: string): Promise<string[]> {
  const realRoot = await realpath(root);
  const removed: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      if (e.isSymbolicLink()) {
        const target = await realpath(full).catch(() => undefined);
        if (!target || !isWithin(realRoot, target)) {
          await rm(full, { force: true });
          removed.push(relative(realRoot, full));
        }
      } else if (e.isDirectory()) {
        await walk(full);
      }
    }
  };
  await walk(realRoot);
  return removed;
}

const MIB = 1024 * 1024;
const sizeText = (bytes: number) => (bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`);

/** `git archive <rev> | tar -x -C <dest>` with both exit codes checked, stopped past `bounds`. */
function pipeArchive(
  gitBin: string,
  gitDir: string,
  revision: string,
  dest: string,
  bounds: ExportBounds | undefined,
): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const git = spawn(gitBin, ['--git-dir', gitDir, 'archive', '--format=tar', revision], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnvironment(),
    });
    const tar = spawn('tar', ['-x', '-C', dest], { stdio: ['pipe', 'ignore', 'pipe'], env: childEnvironment() });
    let errText = '';
    git.stderr.on('data', (b: Buffer) => {
      errText += b.toString();
    });
    tar.stderr.on('data', (b: Buffer) => {
      errText += b.toString();
    });
    git.stdout.pipe(tar.stdin);
    let pending = 2;
    let failed = false;
    const stop = (why: string) => {
      if (failed) return;
      failed = true;
      git.kill('SIGKILL');
      tar.kill('SIGKILL');
      reject(new Error(`the checkout of ${revision} ${why}`));
    };
    if (bounds) {
      let bytes = 0;
      git.stdout.on('data', (b: Buffer) => {
        bytes += b.length;
        if (bytes > bounds.maxBytes) {
          stop(`is larger than ${sizeText(bounds.maxBytes)} (${bounds.settings.maxBytes})`);
        }
      });
      const timer = setTimeout(
        () => stop(`took longer than ${bounds.timeoutMs / 1000}s (${bounds.settings.timeoutMs})`),
        bounds.timeoutMs,
      );
      timer.unref();
      tar.on('close', () => clearTimeout(timer));
    }
    const done = (what: string) => (code: number | null) => {
      if (code !== 0 && !failed) {
        failed = true;
        reject(new Error(`${what} of ${revision} failed: ${errText.trim()}`));
      }
      if (--pending === 0 && !failed) resolvePromise();
    };
    git.on('close', done('git archive'));
    tar.on('close', done('tar'));
    git.on('error', reject);
    tar.on('error', reject);
  });
}

/**
 * Resolves `relPath` inside `root`, following symlinks, and refuses anything that lands outside `root`
 * (`..`, absolute paths, symlinks pointing out). Throws GitPathError; a missing path is also a GitPathError.
 */
export async function resolveInside(root: string, relPath: string): Promise<string> {
  const realRoot = await realpath(root);
  if (isAbsolute(relPath)) throw new GitPathError(`path "${relPath}" must be relative to the repository root`);
  const lexical = resolve(realRoot, relPath);
  if (!isWithin(realRoot, lexical)) throw new GitPathError(`path "${relPath}" escapes the repository`);
  let real: string;
  try {
    real = await realpath(lexical);
  } catch {
    throw new GitPathError(`path "${relPath}" does not exist in the repository`);
  }
  if (!isWithin(realRoot, real)) throw new GitPathError(`path "${relPath}" escapes the repository through a symlink`);
  return real;
}

/** True when `child` is `parent` or below it (both absolute, normalised). */
export function isWithin(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** True when `path` exists and is a directory. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
