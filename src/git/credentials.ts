/**
 * Handing a repository's credentials to one git process, and taking them back afterwards. Credentials never appear
 * in a URL, in git's argv or in any config git keeps (the repository cache's config included):
 * - HTTPS user and password: a credential helper scoped to the repository's origin (`credential.<origin>.helper`)
 *   reads them from a file; git asks it only for that origin, so a redirect to another host gets nothing. Helpers
 *   of the user's own git config are reset first (`credential.helper=`), so none can store them.
 * - SSH: `GIT_SSH_COMMAND` names a key file and a known_hosts file, with strict host-key checking (an unknown host
 *   key fails; nothing is trusted on first use) and no ssh config, agent or other identity.
 * - TLS: a private CA and a client certificate and key, as files named by `http.<origin>.ssl*`.
 * The files live in a fresh directory (0700, files 0600) on memory-backed storage when the host has it, and are
 * removed when the git process ends, whatever happened.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RepositoryCredentials } from '../core/repository.ts';
import { memoryBackedDir } from './memory.ts';

/** What one git process gets beside its usual arguments: `-c` options (before the command) and environment. */
export interface GitAccess {
  config: string[];
  env: Record<string, string>;
}

/** No credentials: nothing beyond git's defaults. */
export const NO_ACCESS: GitAccess = { config: [], env: {} };

/** The origin (`https://host[:port]`) of an http(s) URL, or undefined for ssh, git and scp-like URLs. */
export function httpOrigin(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return undefined;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return undefined;
  }
}

/** Whether git reaches `url` over SSH (`ssh://…` or scp-like `user@host:path`). */
export function isSshURL(url: string): boolean {
  return /^ssh:\/\//i.test(url) || /^\w[\w.-]*@[\w.-]+:(?!\/\/)/.test(url);
}

/** Single-quotes `text` for the shell git runs helpers and GIT_SSH_COMMAND with (paths only, never a secret). */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

async function secretFile(dir: string, name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content.endsWith('\n') ? content : `${content}\n`, { mode: 0o600 });
  return path;
}

/** The `-c` options and environment for `url` with `credentials`, its files written into `dir`. */
async function accessIn(dir: string, url: string, credentials: RepositoryCredentials): Promise<GitAccess> {
  const config: string[] = [];
  const env: Record<string, string> = {};
  const origin = httpOrigin(url);
  if (origin) {
    if (credentials.username !== undefined || credentials.password !== undefined) {
      const file = await secretFile(
        dir,
        'credential',
        `username=${credentials.username ?? ''}\npassword=${credentials.password ?? ''}\n`,
      );
      config.push('-c', `credential.${origin}.helper=!f() { test "$1" = get && cat ${quote(file)}; }; f`);
    }
    if (credentials.ca)
      config.push('-c', `http.${origin}.sslCAInfo=${await secretFile(dir, 'ca.pem', credentials.ca)}`);
    if (credentials.tlsClientCert && credentials.tlsClientKey) {
      config.push('-c', `http.${origin}.sslCert=${await secretFile(dir, 'client.crt', credentials.tlsClientCert)}`);
      config.push('-c', `http.${origin}.sslKey=${await secretFile(dir, 'client.key', credentials.tlsClientKey)}`);
    }
  } else if (isSshURL(url) && credentials.sshPrivateKey) {
    const key = await secretFile(dir, 'id', credentials.sshPrivateKey);
    const knownHosts = await secretFile(dir, 'known_hosts', credentials.knownHosts ?? '');
    env['GIT_SSH_VARIANT'] = 'ssh';
    env['GIT_SSH_COMMAND'] = [
      'ssh -F /dev/null',
      `-i ${quote(key)}`,
      '-o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o PasswordAuthentication=no',
      `-o UserKnownHostsFile=${quote(knownHosts)} -o GlobalKnownHostsFile=/dev/null`,
      '-o StrictHostKeyChecking=yes -o ConnectTimeout=30',
    ].join(' ');
  }
  return { config, env };
}

/**
 * Runs `run` with the access `credentials` give to `url` (see the module comment), then removes every file it
 * wrote. Without credentials `run` gets NO_ACCESS and nothing is written.
 */
export async function withGitAccess<T>(
  url: string,
  credentials: RepositoryCredentials | undefined,
  run: (access: GitAccess) => Promise<T>,
): Promise<T> {
  if (!credentials) return run(NO_ACCESS);
  const dir = await mkdtemp(join(memoryBackedDir() ?? tmpdir(), 'svc-git-access-'));
  try {
    await chmod(dir, 0o700);
    return await run(await accessIn(dir, url, credentials));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
