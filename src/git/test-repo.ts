/**
 * Test helper (unit tests only): a real local git repository in a temp directory, reachable by a file:// URL.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFile } from './exec.ts';

export interface LocalRepo {
  dir: string;
  url: string;
  /** Writes the files (null deletes, `symlink:<target>` makes a symlink), commits, returns the commit id. */
  commit(files: Record<string, string | null>, message?: string): Promise<string>;
  git(...args: string[]): Promise<string>;
  dispose(): Promise<void>;
}

/** Creates a repository with branch `main` and an initial commit of `files`. */
export async function createLocalRepo(files: Record<string, string | null>): Promise<LocalRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-repo-'));
  const git = async (...args: string[]) =>
    (
      await execFile(
        'git',
        ['-c', 'user.name=t', '-c', 'user.email=t@example.test', '-c', 'commit.gpgsign=false', ...args],
        {
          cwd: dir,
        },
      )
    ).stdout.trim();
  await git('init', '--quiet', '-b', 'main');
  const commit = async (changes: Record<string, string | null>, message = 'change') => {
    for (const [path, content] of Object.entries(changes)) {
      const full = join(dir, path);
      if (content === null) {
        await rm(full, { force: true, recursive: true });
        continue;
      }
      await mkdir(dirname(full), { recursive: true });
      if (content.startsWith('symlink:')) await symlink(content.slice('symlink:'.length), full);
      else await writeFile(full, content);
    }
    await git('add', '-A');
    await git('commit', '--quiet', '--allow-empty', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  await commit(files, 'initial');
  return { dir, url: `file://${dir}`, commit, git, dispose: () => rm(dir, { recursive: true, force: true }) };
}
