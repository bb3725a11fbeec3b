/**
 * svc's git layer (src/git) with a repository's credentials against real servers: Debian's sshd with git-shell
 * and the harness git server over TLS with basic auth. Each failure names its cause (wrong key, unknown or changed
 * host key, wrong password, revoked key, untrusted certificate); credentials never reach the repository cache's
 * config and their files are gone after each fetch; one URL under two orgs is two caches; the outbound policy
 * refuses a link-local repository before git runs.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepositoryCredentials } from '../../src/core/repository.ts';
import { gitGuard } from '../../src/engine/sources/index.ts';
import { GitFetchError, memoryBackedDir, RepoCache } from '../../src/git/index.ts';
import { type GitServer, type SshGitServer, startGitServer, startSshGitServer } from '../harness/index.ts';

const PASSWORD = 'git-credentials-password-1';

describe('git with repository credentials (real sshd and an HTTPS git server)', () => {
  let ssh: SshGitServer;
  let https: GitServer;
  let cacheDir: string;
  let cache: RepoCache;

  beforeAll(async () => {
    [ssh, https] = await Promise.all([
      startSshGitServer(),
      startGitServer({ tls: true, basicAuth: { user: 'deploy', password: PASSWORD } }),
    ]);
    cacheDir = await mkdtemp(join(tmpdir(), 'git-credentials-'));
    cache = new RepoCache({ dir: cacheDir, guard: gitGuard({ scope: 'loopback', requireHttps: false }) });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([ssh?.stop(), https?.stop()]);
    await rm(cacheDir, { recursive: true, force: true });
  });

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => (e instanceof GitFetchError ? { errorClass: e.errorClass, message: e.message } : e),
    );
  const sshCredentials = (over: Partial<RepositoryCredentials> = {}): RepositoryCredentials => ({
    sshPrivateKey: ssh.clientKey.privateKey,
    knownHosts: ssh.knownHosts,
    ...over,
  });

  it('fetches over SSH with the key and known_hosts, and follows a new commit', async () => {
    const repo = await ssh.createRepo('ssh-app', { 'a.yaml': 'kind: ConfigMap\n' });
    const remote = { url: repo.url, scope: 'org-a', credentials: async () => sshCredentials() };
    expect(await cache.resolveBranch(remote, 'main')).toBe(await repo.head());
    const next = await repo.commit({ 'b.yaml': 'kind: Secret\n' }, 'next');
    expect(await cache.resolveBranch(remote, 'main')).toBe(next);
    expect(await cache.lsRemote(remote)).toBeGreaterThan(0);
  });

  it('names each SSH failure: a refused key, no known host key, a changed host key, a revoked key', async () => {
    const repo = await ssh.createRepo('ssh-fail', { 'a.yaml': 'kind: ConfigMap\n' });
    const remote = (c: RepositoryCredentials, scope = 'org-fail') => ({
      url: repo.url,
      scope,
      credentials: async () => c,
    });
    expect(
      await failure(cache.resolveBranch(remote(sshCredentials({ sshPrivateKey: ssh.otherKey.privateKey })), 'main')),
    ).toEqual({
      errorClass: 'auth',
      message: expect.stringContaining('the SSH key was refused'),
    });
    expect(await failure(cache.resolveBranch(remote(sshCredentials({ knownHosts: '' })), 'main'))).toEqual({
      errorClass: 'hostkey',
      message: expect.stringContaining("not in the repository's known_hosts"),
    });
    expect(
      await failure(cache.resolveBranch(remote(sshCredentials({ knownHosts: ssh.wrongKnownHosts })), 'main')),
    ).toMatchObject({ errorClass: 'hostkey' });
    await ssh.authorize(false);
    try {
      expect(await failure(cache.resolveBranch(remote(sshCredentials(), 'org-revoked'), 'main'))).toMatchObject({
        errorClass: 'auth',
      });
    } finally {
      await ssh.authorize(true);
    }
  });

  it('fetches over HTTPS with a password and a private CA; names a wrong password and an untrusted certificate', async () => {
    const repo = await https.createRepo('https-app', { 'a.yaml': 'kind: ConfigMap\n' });
    const good: RepositoryCredentials = { username: 'deploy', password: PASSWORD, ca: https.caPEM ?? '' };
    let asked = 0;
    const remote = {
      url: repo.url,
      scope: 'org-h',
      credentials: async () => {
        asked++;
        return good;
      },
    };
    expect(await cache.resolveBranch(remote, 'main')).toBe(await repo.head());
    // Credentials are asked for when a fetch runs (a rotated password is used by the next fetch), not kept.
    await cache.resolveBranch(remote, 'main');
    expect(asked).toBe(2);
    const wrong = {
      url: repo.url,
      scope: 'org-w',
      credentials: async () => ({ ...good, password: 'not-the-password-9' }),
    };
    expect(await failure(cache.resolveBranch(wrong, 'main'))).toMatchObject({ errorClass: 'auth' });
    const noCA = {
      url: repo.url,
      scope: 'org-c',
      credentials: async () => ({ username: 'deploy', password: PASSWORD }),
    };
    expect(await failure(cache.resolveBranch(noCA, 'main'))).toMatchObject({ errorClass: 'tls' });
    // Nothing of the credentials stays in the cache's repository config, and no credential file is left behind.
    const config = await readFile(join(cache.repoDir(remote), 'config'), 'utf8');
    expect(config).not.toContain(PASSWORD);
    expect(config).not.toContain('credential');
    const shm = memoryBackedDir() ?? tmpdir();
    expect((await readdir(shm)).filter((f) => f.startsWith('svc-git-access-'))).toEqual([]);
  });

  it('keeps one URL of two orgs apart: an org without credentials never reads what another org fetched', async () => {
    const repo = await https.createRepo('shared-url', { 'a.yaml': 'kind: ConfigMap\n' });
    const withCredentials = {
      url: repo.url,
      scope: 'org-one',
      credentials: async () => ({ username: 'deploy', password: PASSWORD, ca: https.caPEM ?? '' }),
    };
    const anonymous = { url: repo.url, scope: 'org-two', credentials: async () => ({ ca: https.caPEM ?? '' }) };
    const head = await cache.resolveBranch(withCredentials, 'main');
    expect(cache.repoDir(withCredentials)).not.toBe(cache.repoDir(anonymous));
    expect(await failure(cache.resolveBranch(anonymous, 'main'))).toMatchObject({ errorClass: 'auth' });
    expect(await failure(cache.resolveRevision(anonymous, head))).toMatchObject({ errorClass: 'auth' });
  });

  it('refuses a repository at a link-local address before git runs (outbound policy)', async () => {
    expect(await failure(cache.resolveBranch('http://169.254.169.254/latest/repo.git', 'main'))).toMatchObject({
      errorClass: 'refused',
      message: expect.stringContaining('link-local'),
    });
  });
});
