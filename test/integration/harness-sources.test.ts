/**
 * The harness peers of private sources work as a user's tools see them: Debian's sshd with git-shell (strict host
 * keys, one authorized key), the git server over TLS with basic auth, an HTTPS chart repository with basic auth
 * (`helm package` + `helm repo index`, read back with `helm pull`), and `helm push` of a chart to the Debian
 * registry with htpasswd.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  binary,
  type ChartRepo,
  type GitServer,
  guestbookChart,
  pushChart,
  type Registry,
  type SshGitServer,
  startChartRepo,
  startGitServer,
  startRegistry,
  startSshGitServer,
} from '../harness/index.ts';

const execFileAsync = promisify(execFile);

describe('harness: private source peers', () => {
  let ssh: SshGitServer;
  let https: GitServer;
  let charts: ChartRepo;
  let registry: Registry;
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'harness-sources-'));
    [ssh, https, charts, registry] = await Promise.all([
      startSshGitServer(),
      startGitServer({ tls: true, basicAuth: { user: 'git-user', password: 'harness-git-password-1' } }),
      startChartRepo({ tls: true, basicAuth: { user: 'chart-user', password: 'harness-chart-password-1' } }),
      startRegistry({ htpasswd: { user: 'oci-user', password: 'harness-oci-password-1' } }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([ssh?.stop(), https?.stop(), charts?.stop(), registry?.stop()]);
    await rm(work, { recursive: true, force: true });
  });

  /** git with an SSH key and known_hosts of its own (no agent, no config), as svc runs it. */
  async function sshGit(args: string[], key: string, knownHosts: string) {
    const dir = await mkdtemp(join(work, 'ssh-'));
    await writeFile(join(dir, 'id'), key, { mode: 0o600 });
    await writeFile(join(dir, 'kh'), `${knownHosts}\n`);
    const command = `ssh -F /dev/null -i ${join(dir, 'id')} -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile=${join(dir, 'kh')} -o StrictHostKeyChecking=yes`;
    return execFileAsync('git', args, { env: { PATH: process.env['PATH'], GIT_SSH_COMMAND: command } });
  }

  it('sshd serves a repository through git-shell to the authorized key, and only with the right host key', async () => {
    const repo = await ssh.createRepo('app', { 'a.yaml': 'kind: ConfigMap\n' });
    const { stdout } = await sshGit(['ls-remote', repo.url], ssh.clientKey.privateKey, ssh.knownHosts);
    expect(stdout).toContain(await repo.head());
    await expect(sshGit(['ls-remote', repo.url], ssh.otherKey.privateKey, ssh.knownHosts)).rejects.toThrow(
      /Permission denied \(publickey\)/,
    );
    await expect(sshGit(['ls-remote', repo.url], ssh.clientKey.privateKey, ssh.wrongKnownHosts)).rejects.toThrow(
      /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/,
    );
    // git-shell: no shell for the key, whatever is asked.
    await expect(
      execFileAsync('ssh', [
        '-F',
        '/dev/null',
        '-p',
        String(ssh.port),
        '-o',
        'BatchMode=yes',
        '-o',
        'StrictHostKeyChecking=no',
        '-o',
        'UserKnownHostsFile=/dev/null',
        '-i',
        join(work, 'none'),
        `${ssh.user}@127.0.0.1`,
        'id',
      ]),
    ).rejects.toThrow();
  });

  it('the git server answers over TLS with basic auth only', async () => {
    const repo = await https.createRepo('private', { 'a.yaml': 'kind: ConfigMap\n' });
    await writeFile(join(work, 'git-ca.pem'), https.caPEM ?? '');
    const env = { PATH: process.env['PATH'], GIT_TERMINAL_PROMPT: '0', GIT_SSL_CAINFO: join(work, 'git-ca.pem') };
    await expect(execFileAsync('git', ['ls-remote', repo.url], { env })).rejects.toThrow(
      /401|Authentication|could not read/,
    );
    const withAuth = repo.url.replace('https://', 'https://git-user:harness-git-password-1@');
    expect((await execFileAsync('git', ['ls-remote', withAuth], { env })).stdout).toContain(await repo.head());
  });

  it('the chart repository serves helm-packaged charts behind basic auth over TLS', async () => {
    const digest = await charts.publish('guestbook', guestbookChart('1.2.0'));
    expect(digest).toMatch(/^sha256:[a-f0-9]{64}$/);
    expect(await charts.index()).toContain('version: 1.2.0');
    await writeFile(join(work, 'charts-ca.pem'), charts.caPEM ?? '');
    const { stdout, stderr } = await execFileAsync(
      binary('helm'),
      [
        'pull',
        'guestbook',
        '--repo',
        charts.url,
        '--version',
        '1.2.0',
        '--username',
        'chart-user',
        '--password',
        'harness-chart-password-1',
        '--ca-file',
        join(work, 'charts-ca.pem'),
        '--destination',
        work,
      ],
      { env: { PATH: process.env['PATH'], HOME: work } },
    );
    expect(`${stdout}${stderr}`).not.toMatch(/Error/);
    expect(charts.requests.some((r) => r.path === '/index.yaml' && !r.authorized)).toBe(false);
  });

  it('helm push stores a chart in the registry with htpasswd', async () => {
    const digest = await pushChart(registry, 'charts', guestbookChart('0.1.0'));
    expect(await registry.resolve('charts/guestbook', '0.1.0')).toBe(digest);
  });
});
