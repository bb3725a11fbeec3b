import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type CreateRepoOptions, createRepo, type GitRepo } from './git-server.ts';
import { registerSecret } from './leak-registry.ts';
import { freePort } from './ports.ts';
import { makeTempDir, removeTempDir, startProcess, waitUntil } from './process.ts';

const execFileAsync = promisify(execFile);

/** Debian's sshd (openssh-server), the binary the SSH git server runs. */
export const SSHD = '/usr/sbin/sshd';

/** A key pair made for a test: the private key (OpenSSH PEM) and the public key line. */
export interface SshKey {
  privateKey: string;
  publicKey: string;
}

/** Debian's `openssh-server` on a loopback port serving fixture repositories through `git-shell`. */
export interface SshGitServer {
  /** `127.0.0.1`. */
  host: string;
  port: number;
  /** The user clients log in as (the user running the tests; its key is forced into git-shell). */
  user: string;
  /** A key the server accepts (authorized, forced to `git-shell`). */
  clientKey: SshKey;
  /** A key the server refuses. */
  otherKey: SshKey;
  /** The known_hosts line of this server's own host key (fresh per server). */
  knownHosts: string;
  /** A known_hosts line naming this host with another key (what a man in the middle would present). */
  wrongKnownHosts: string;
  /** Creates a repository served at `ssh://<user>@127.0.0.1:<port>/<path>`. */
  createRepo(name: string, files: Record<string, string>, options?: CreateRepoOptions): Promise<GitRepo>;
  /** Revokes `clientKey` (no key is authorized any more) or authorizes it again. */
  authorize(authorized: boolean): Promise<void>;
  stop(): Promise<void>;
}

async function keygen(path: string, comment: string): Promise<SshKey> {
  await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path]);
  return { privateKey: await readFile(path, 'utf8'), publicKey: (await readFile(`${path}.pub`, 'utf8')).trim() };
}

/** Registers a key with the run's leak scan: the whole key and its first body line (found however it is quoted). */
function registerKey(label: string, key: SshKey): void {
  registerSecret(label, key.privateKey);
  const line = key.privateKey.split('\n').find((l) => l.length > 40 && !l.startsWith('-----'));
  if (line) registerSecret(`${label} (a line of it)`, line);
}

/**
 * Starts sshd on 127.0.0.1 (a free port) with a fresh host key, one authorized client key forced into `git-shell`
 * (no shell, no forwarding), no passwords; repositories live in a temp directory removed by stop().
 */
export async function startSshGitServer(): Promise<SshGitServer> {
  if (!existsSync(SSHD)) throw new Error(`${SSHD} is missing: apt-get install openssh-server`);
  const dir = makeTempDir('sshgit');
  const root = join(dir, 'repos');
  const work = join(dir, 'work');
  await Promise.all([mkdir(root), mkdir(work)]);
  // sshd run by root wants its privilege-separation directory (the package makes it only when its service starts).
  if (process.getuid?.() === 0) await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const [hostKey, clientKey, otherKey, wrongHost] = await Promise.all([
    keygen(join(dir, 'host_ed25519'), 'svc-test-host'),
    keygen(join(dir, 'client'), 'svc-test-client'),
    keygen(join(dir, 'other'), 'svc-test-other'),
    keygen(join(dir, 'wrong_host'), 'svc-test-wrong-host'),
  ]);
  registerKey('ssh git client key', clientKey);
  registerKey('ssh git other key', otherKey);
  const user = userInfo().username;
  const authorizedKeys = join(dir, 'authorized_keys');
  const authorized = `command="git-shell -c \\"$SSH_ORIGINAL_COMMAND\\"",no-port-forwarding,no-pty,no-agent-forwarding,no-X11-forwarding ${clientKey.publicKey}\n`;
  await writeFile(authorizedKeys, authorized, { mode: 0o600 });
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_ed25519')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      'StrictModes no',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      `AllowUsers ${user}`,
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  await chmod(join(dir, 'host_ed25519'), 0o600);
  const proc = startProcess('sshd', SSHD, ['-D', '-e', '-f', config], { logDir: dir });
  const hostPart = `[127.0.0.1]:${port}`;
  const knownHosts = `${hostPart} ${hostKey.publicKey.split(' ').slice(0, 2).join(' ')}`;
  const wrongKnownHosts = `${hostPart} ${wrongHost.publicKey.split(' ').slice(0, 2).join(' ')}`;
  try {
    await waitUntil(
      async () => {
        const { stdout } = await execFileAsync('ssh-keyscan', ['-p', String(port), '-T', '2', '127.0.0.1']).catch(
          () => ({ stdout: '' }),
        );
        return stdout.includes('ssh-ed25519');
      },
      { what: 'sshd', process: proc, timeoutMs: 20_000 },
    );
  } catch (err) {
    await proc.stop();
    removeTempDir(dir);
    throw err;
  }
  return {
    host: '127.0.0.1',
    port,
    user,
    clientKey,
    otherKey,
    knownHosts,
    wrongKnownHosts,
    createRepo: (name, files, options) =>
      createRepo(
        { root, work, home: dir, urlOf: (n) => `ssh://${user}@127.0.0.1:${port}${join(root, `${n}.git`)}` },
        name,
        files,
        options,
      ),
    authorize: (yes) => writeFile(authorizedKeys, yes ? authorized : '', { mode: 0o600 }),
    async stop() {
      await proc.stop();
      removeTempDir(dir);
    },
  };
}
