import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer, waitUntil } from '../harness/index.ts';

const execFileAsync = promisify(execFile);

async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  return stdout.trim();
}

/** `git ls-remote` over HTTP as a map ref → SHA (tags peeled). */
async function lsRemote(url: string): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  for (const line of (await git(tmpdir(), 'ls-remote', url)).split('\n')) {
    const [sha, ref] = line.split('\t');
    if (sha && ref) refs.set(ref, sha);
  }
  return refs;
}

describe('harness: git smart HTTP server', () => {
  let server: GitServer;
  let work: string;

  beforeAll(async () => {
    server = await startGitServer();
    work = await mkdtemp(join(tmpdir(), 'harness-git-test-'));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(work, { recursive: true, force: true });
  });

  it('serves a fixture repo that clones over HTTP with the committed content', async () => {
    const repo = await server.createRepo('app', { 'k8s/deploy.yaml': 'kind: Deployment\n', 'README.md': 'hi\n' });
    const head = await repo.head();
    expect(head).toMatch(/^[0-9a-f]{40}$/);
    await git(work, 'clone', '--quiet', repo.url, 'app');
    expect(await git(join(work, 'app'), 'rev-parse', 'HEAD')).toBe(head);
    expect(await readFile(join(work, 'app', 'k8s', 'deploy.yaml'), 'utf8')).toBe('kind: Deployment\n');
    expect(server.requests.some((r) => r.path.includes('/app.git/info/refs'))).toBe(true);
  });

  it('commits, branches, tags and rewrites with real SHAs visible over HTTP', async () => {
    const repo = await server.createRepo('flow', { 'a.txt': '1\n' });
    const second = await repo.commit({ 'a.txt': '2\n', 'b.txt': 'new\n' }, 'second');
    const branchSha = await repo.createBranch('release');
    const onBranch = await repo.commit({ 'c.txt': 'release only\n' }, 'on release', { branch: 'release' });
    const tagged = await repo.tag('v1.0.0', 'release', 'first release');
    const lightweight = await repo.tag('latest', second);
    let refs = await lsRemote(repo.url);
    expect(refs.get('refs/heads/main')).toBe(second);
    expect(branchSha).toBe(second);
    expect(refs.get('refs/heads/release')).toBe(onBranch);
    expect(refs.get('refs/tags/v1.0.0^{}')).toBe(tagged);
    expect(tagged).toBe(onBranch);
    expect(refs.get('refs/tags/latest')).toBe(lightweight);

    const deleted = await repo.commit({ 'b.txt': null }, 'delete b');
    const rewritten = await repo.rewrite({ 'a.txt': '3\n' }, 'rewritten');
    expect(rewritten).not.toBe(deleted);
    refs = await lsRemote(repo.url);
    expect(refs.get('refs/heads/main')).toBe(rewritten);
    await git(work, 'clone', '--quiet', repo.url, 'flow');
    // The rewritten tip replaced "delete b": its parent is the second commit and it carries both changes.
    expect(await git(join(work, 'flow'), 'rev-parse', 'HEAD^')).toBe(second);
    expect(await git(join(work, 'flow'), 'ls-tree', '--name-only', 'HEAD')).toBe('a.txt');

    expect(await repo.forcePush('main', second)).toBe(second);
    expect((await lsRemote(repo.url)).get('refs/heads/main')).toBe(second);
    await repo.deleteRef('release');
    expect((await lsRemote(repo.url)).has('refs/heads/release')).toBe(false);
  });

  it('supports a first branch other than main', async () => {
    const repo = await server.createRepo('trunk', { 'a.txt': '1\n' }, { branch: 'trunk' });
    const sha = await repo.commit({ 'a.txt': '2\n' }, 'on trunk');
    const feature = await repo.commit({ 'f.txt': 'f\n' }, 'feature work', { branch: 'feature' });
    const refs = await lsRemote(repo.url);
    expect(refs.get('refs/heads/trunk')).toBe(sha);
    expect(refs.get('refs/heads/feature')).toBe(feature);
    expect(refs.has('refs/heads/main')).toBe(false);
    expect(refs.get('HEAD')).toBe(sha);
  });

  it('accepts pushes over HTTP', async () => {
    const repo = await server.createRepo('pushed', { 'x.txt': 'x\n' });
    const dir = join(work, 'pushed');
    await git(work, 'clone', '--quiet', repo.url, 'pushed');
    await git(
      dir,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '--quiet',
      '--allow-empty',
      '-m',
      'over http',
    );
    await git(dir, 'push', '--quiet', 'origin', 'main');
    expect(await repo.head()).toBe(await git(dir, 'rev-parse', 'HEAD'));
  });

  it('holds requests until released, and goes down and up again on the same port', async () => {
    const repo = await server.createRepo('gated', { 'a.txt': 'a\n' });
    const head = await repo.head();
    const before = server.requests.length;
    const hold = server.hold();
    const overlapping = server.hold();
    let answered = false;
    const listing = lsRemote(repo.url).then((refs) => {
      answered = true;
      return refs;
    });
    await waitUntil(() => hold.waiting() > 0 || undefined, { what: 'the held request' });
    expect(server.requests.length).toBeGreaterThan(before);
    hold.release();
    hold.release();
    // Another hold is still in force: the request still waits.
    expect(hold.waiting()).toBe(1);
    expect(answered).toBe(false);
    overlapping.release();
    expect((await listing).get('refs/heads/main')).toBe(head);
    expect(hold.waiting()).toBe(0);

    await server.down();
    await expect(lsRemote(repo.url)).rejects.toThrow(/Failed to connect|Connection refused|Could not connect/i);
    await server.up();
    await server.up();
    expect((await lsRemote(repo.url)).get('refs/heads/main')).toBe(head);
  });
});

describe('harness: git server with basic auth', () => {
  let server: GitServer;

  beforeAll(async () => {
    server = await startGitServer({ basicAuth: { user: 'bot', password: 's3cret-basic-auth-9f2c' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('refuses anonymous clones and serves authenticated ones', async () => {
    const repo = await server.createRepo('private', { 'a.txt': 'a\n' });
    await expect(git(tmpdir(), 'ls-remote', repo.url)).rejects.toThrow(/Authentication failed|could not read Username/);
    const authed = repo.url.replace('http://', 'http://bot:s3cret-basic-auth-9f2c@');
    expect((await lsRemote(authed)).get('refs/heads/main')).toBe(await repo.head());
  });
});
