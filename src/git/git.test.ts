import { mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnvironment } from './exec.ts';
import { exportRevision, GitFetchError, GitPathError, GitRefError, RepoCache, resolveInside } from './index.ts';
import { parseRefs } from './repo-cache.ts';
import { createLocalRepo, type LocalRepo } from './test-repo.ts';

let repo: LocalRepo;
let cacheDir: string;
let first: string;

beforeAll(async () => {
  repo = await createLocalRepo({
    'app/deploy.yaml': 'kind: ConfigMap\n',
    'app/link-out': 'symlink:/etc',
    'app/link-in': 'symlink:deploy.yaml',
  });
  first = await repo.git('rev-parse', 'HEAD');
  cacheDir = await mkdtemp(join(tmpdir(), 'svc-git-cache-'));
});

afterAll(async () => {
  await repo.dispose();
  await rm(cacheDir, { recursive: true, force: true });
});

describe('RepoCache', () => {
  it('resolves a branch head and follows new commits', async () => {
    const cache = new RepoCache({ dir: cacheDir });
    expect(await cache.resolveBranch(repo.url, 'main')).toBe(first);
    const second = await repo.commit({ 'app/extra.yaml': 'kind: Secret\n' });
    expect(await cache.resolveBranch(repo.url, 'main')).toBe(second);
  });

  it('collapses concurrent fetches of one URL into one', async () => {
    const cache = new RepoCache({ dir: cacheDir });
    await Promise.all([1, 2, 3, 4, 5].map(() => cache.resolveBranch(repo.url, 'main')));
    expect(cache.fetchCount.get(repo.url)).toBe(1);
    await cache.resolveBranch(repo.url, 'main', { maxAgeMs: 60_000 });
    expect(cache.fetchCount.get(repo.url)).toBe(1);
  });

  it('argument injection (git --upload-pack=, -c core.sshCommand=): a URL or revision shaped like an option never runs anything', async () => {
    const cache = new RepoCache({ dir: cacheDir });
    const marker = join(cacheDir, 'pwned');
    for (const url of [`--upload-pack=touch ${marker}`, `-c core.sshCommand=touch ${marker}`]) {
      await expect(cache.resolveBranch(url, 'main')).rejects.toBeInstanceOf(GitFetchError);
    }
    await expect(cache.resolveRevision(repo.url, `--output=${marker}`)).rejects.toBeInstanceOf(GitRefError);
    expect(await readdir(cacheDir)).not.toContain('pwned');
  });

  it('reports an unknown branch and an unreachable remote', async () => {
    const cache = new RepoCache({ dir: cacheDir });
    await expect(cache.resolveBranch(repo.url, 'nope')).rejects.toBeInstanceOf(GitRefError);
    await expect(cache.resolveBranch(`file://${cacheDir}/missing`, 'main')).rejects.toBeInstanceOf(GitFetchError);
  });

  it('sweeps repositories idle for longer than the given time, and fetches them again on use', async () => {
    const cache = new RepoCache({ dir: cacheDir });
    await cache.resolveBranch(repo.url, 'main');
    expect(await cache.sweep(60_000)).toBe(0);
    expect(await cache.sweep(0)).toBeGreaterThanOrEqual(1);
    expect(await readdir(cacheDir)).toEqual([]);
    expect(await cache.resolveBranch(repo.url, 'main')).toBe(await repo.git('rev-parse', 'HEAD'));
  });

  it('reads every branch and tag once per fetch, tags peeled to their commit, deleted branches gone', async () => {
    const cache = new RepoCache({ dir: cacheDir });
    const head = await repo.git('rev-parse', 'HEAD');
    await repo.git('branch', 'feature', first);
    await repo.git('tag', '-a', 'v1', '-m', 'annotated', first);
    await repo.git('tag', 'light', head);
    await cache.fetch(repo.url);
    const refs = cache.refs(repo.url);
    expect(refs?.get('refs/heads/main')).toBe(head);
    expect(refs?.get('refs/heads/feature')).toBe(first);
    expect(refs?.get('refs/tags/v1')).toBe(first);
    expect(refs?.get('refs/tags/light')).toBe(head);
    expect(await cache.resolveBranch(repo.url, 'feature')).toBe(first);
    await repo.git('branch', '-D', 'feature');
    const next = await repo.commit({ 'app/more.yaml': 'kind: Secret\n' });
    expect(await cache.resolveBranch(repo.url, 'main')).toBe(next);
    expect(cache.refs(repo.url)?.has('refs/heads/feature')).toBe(false);
    await expect(cache.resolveBranch(repo.url, 'feature')).rejects.toBeInstanceOf(GitRefError);
    // A younger fetch serves the call, and so does its map: no new fetch, same answer.
    expect(await cache.resolveBranch(repo.url, 'main', { maxAgeMs: 60_000 })).toBe(next);
    expect(cache.fetchCount.get(repo.url)).toBe(4);
  });

  it('reuses a fetch that started after `startedAfter`, and fetches again after one that started before', async () => {
    const cache = new RepoCache({ dir: cacheDir });
    const requested = Date.now();
    await cache.fetch(repo.url);
    await cache.resolveBranch(repo.url, 'main', { startedAfter: requested });
    expect(cache.fetchCount.get(repo.url)).toBe(1);
    const running = cache.fetch(repo.url);
    await new Promise((r) => setTimeout(r, 5));
    const pushedAt = Date.now();
    const next = await repo.commit({ 'app/pushed.yaml': 'kind: Secret\n' });
    expect(await cache.resolveBranch(repo.url, 'main', { startedAfter: pushedAt })).toBe(next);
    await running;
    expect(cache.fetchCount.get(repo.url)).toBe(3);
  });

  it('reads subject, author and date of exact commits, fetching once for one it lacks; other ids are left out', async () => {
    const cache = new RepoCache({ dir: await mkdtemp(join(cacheDir, 'commits-')) });
    const pushed = await repo.commit({ 'app/history.yaml': 'kind: Secret\n' }, 'Bump the web tier to 3 replicas');
    const missing = 'f'.repeat(40);
    const commits = await cache.commits(repo.url, [pushed, first, missing, 'main', '--output=/tmp/x']);
    expect([...commits.keys()].sort()).toEqual([first, pushed].sort());
    expect(commits.get(pushed)).toEqual({
      subject: 'Bump the web tier to 3 replicas',
      author: 't',
      date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/),
    });
    expect(commits.get(first)?.subject).toBe('initial');
    const later = await repo.commit({ 'app/later.yaml': 'kind: Secret\n' }, 'Later');
    // A fetch younger than maxAgeMs serves (the commit stays unknown); an older one is repeated.
    expect((await cache.commits(repo.url, [later], 60_000)).has(later)).toBe(false);
    expect((await cache.commits(repo.url, [later], 0)).get(later)?.subject).toBe('Later');
    expect(cache.fetchCount.get(repo.url)).toBe(2);
  });

  it('parses for-each-ref output', () => {
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    expect(parseRefs(`${a}  refs/heads/main\n${b} ${a} refs/tags/v1\n\n`)).toEqual(
      new Map([
        ['refs/heads/main', a],
        ['refs/tags/v1', a],
      ]),
    );
  });

  it('resolves an old revision, abbreviated, and refuses unknown ones', async () => {
    const cache = new RepoCache({ dir: cacheDir });
    expect(await cache.resolveRevision(repo.url, first.slice(0, 10))).toBe(first);
    await expect(cache.resolveRevision(repo.url, 'f'.repeat(40))).rejects.toBeInstanceOf(GitRefError);
    await expect(cache.resolveRevision(repo.url, '--upload-pack=x')).rejects.toBeInstanceOf(GitRefError);
  });
});

describe('exportRevision and resolveInside', () => {
  it('exports the exact revision and refuses escaping paths', async () => {
    const cache = new RepoCache({ dir: cacheDir });
    const rev = await cache.resolveRevision(repo.url, first);
    const co = await exportRevision(cache, repo.url, rev);
    try {
      const app = await resolveInside(co.root, 'app');
      expect(await readFile(join(app, 'deploy.yaml'), 'utf8')).toBe('kind: ConfigMap\n');
      await expect(readFile(join(app, 'extra.yaml'))).rejects.toThrow();
      expect(await resolveInside(co.root, 'app/link-in')).toBe(join(app, 'deploy.yaml'));
      await expect(resolveInside(co.root, '../..')).rejects.toBeInstanceOf(GitPathError);
      await expect(resolveInside(co.root, '/etc')).rejects.toBeInstanceOf(GitPathError);
      // Escaping symlinks are removed from every checkout, so no renderer can follow them.
      await expect(resolveInside(co.root, 'app/link-out')).rejects.toThrow(/does not exist/);
      await expect(resolveInside(co.root, 'nope')).rejects.toThrow(/does not exist/);
      await symlink('/etc', join(app, 'late-link'));
      await expect(resolveInside(co.root, 'app/late-link')).rejects.toThrow(/symlink/);
    } finally {
      await co.dispose();
    }
  });

  it('stops an export larger than its bound, naming the setting, and leaves nothing behind (huge repositories)', async () => {
    const cache = new RepoCache({ dir: cacheDir });
    const rev = await cache.resolveRevision(repo.url, first);
    const work = await mkdtemp(join(tmpdir(), 'svc-export-bound-'));
    try {
      const bounds = {
        maxBytes: 1024,
        timeoutMs: 60_000,
        settings: { maxBytes: 'SVC_CHECKOUT_MAX_MIB', timeoutMs: 'T' },
      };
      await expect(exportRevision(cache, repo.url, rev, work, bounds)).rejects.toThrow(
        /is larger than 1024 bytes \(SVC_CHECKOUT_MAX_MIB\)/,
      );
      expect(await readdir(work)).toEqual([]);
      const roomy = await exportRevision(cache, repo.url, rev, work, { ...bounds, maxBytes: 1024 * 1024 });
      await roomy.dispose();
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

describe('childEnvironment', () => {
  it('passes an allowlist (PATH, HOME, ...) and nothing else to git, kustomize and helm', () => {
    const env = childEnvironment();
    expect(env['PATH']).toBeDefined();
    for (const key of Object.keys(env)) {
      expect(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'SSL_CERT_FILE', 'SSL_CERT_DIR']).toContain(key);
    }
  });
});
