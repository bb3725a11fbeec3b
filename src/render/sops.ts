/**
 * SOPS decryption with the real `sops` binary (contract §9 "decrypt at apply", planned there; Flux's
 * `spec.decryption`). Not a JavaScript port: sops verifies each file's MAC and refuses one that was changed after
 * it was encrypted.
 *
 * How sops runs: ciphertext on stdin, plaintext on stdout (sops writes no file); the age identity only in the
 * child's environment (`SOPS_AGE_KEY`), which holds nothing else but an empty private HOME (so no key file, SSH key
 * or `.sops.yaml` of the machine is ever used), removed after the call. Errors name the file and the reason class
 * (MAC mismatch, wrong key, not a SOPS file) and never carry sops' own output, so no plaintext can reach a status,
 * an Event or a log line through them.
 */
import { spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { inSpan } from '../trace.ts';
import { type KubeObject, ManifestError } from './types.ts';

/** The file formats sops reads (the subset svc decrypts). */
export type SopsFormat = 'yaml' | 'json' | 'dotenv' | 'binary';

/** What decrypts one file: bound to an age identity and the sops binary (see `sopsDecryptor`). */
export type Decrypt = (content: string, format: SopsFormat, file: string) => Promise<string>;

/** sops exit codes (cmd/sops/codes) that have a reason svc can name. */
const MAC_MISMATCH = 51;
const COULD_NOT_RETRIEVE_KEY = 128;
const CALL_TIMEOUT_MS = 30_000;

/** The format of a file by name: .json → json, .env → dotenv, .yaml/.yml → yaml, anything else sops' binary. */
export function formatOf(file: string): SopsFormat {
  if (/\.json$/i.test(file)) return 'json';
  if (/\.env$/i.test(file)) return 'dotenv';
  if (/\.ya?ml$/i.test(file)) return 'yaml';
  return 'binary';
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A `sops` metadata block: a map with a MAC. */
const isSopsBlock = (v: unknown): boolean => isMap(v) && typeof v['mac'] === 'string';

/** Whether `content` (in `format`) is a SOPS-encrypted file. Never throws: unparseable text is not one. */
export function isSopsEncrypted(content: string, format: SopsFormat): boolean {
  if (!content.includes('sops')) return false;
  if (format === 'dotenv') return /^sops_mac=/m.test(content);
  try {
    if (format === 'json' || format === 'binary') {
      const value: unknown = JSON.parse(content);
      return isMap(value) && isSopsBlock(value['sops']);
    }
    return parseAllDocuments(content).some((doc) => {
      if (!Array.isArray(doc) && doc.errors.length > 0) return false;
      const value: unknown = doc.toJS({ maxAliasCount: 100 });
      return isMap(value) && isSopsBlock(value['sops']);
    });
  } catch {
    return false;
  }
}

/** Whether a rendered object still carries SOPS metadata (it was not decrypted: it must never be applied). */
export function isEncryptedObject(obj: Record<string, unknown>): boolean {
  return isSopsBlock(obj['sops']);
}

/** Why sops failed, in words safe to show (never sops' output). */
function reasonOf(code: number | null, stderr: string): string {
  if (code === MAC_MISMATCH) return 'MAC mismatch: the file was changed after it was encrypted';
  if (code === COULD_NOT_RETRIEVE_KEY) return 'the age key of the decryption store cannot decrypt it (wrong key)';
  if (/metadata not found/.test(stderr)) return 'it is not a SOPS-encrypted file';
  if (code === null) return 'sops did not finish (timed out or killed)';
  return `sops could not decrypt it (exit ${code})`;
}

/**
 * A Decrypt for one age identity: each call runs `sops decrypt` as the module comment describes. `storeRef` names
 * the store in errors. Rejects with ManifestError naming the file.
 */
export function sopsDecryptor(sopsBin: string, ageKey: string, storeRef: string): Decrypt {
  return async (content, format, file) => {
    const home = await mkdtemp(join(tmpdir(), 'svc-sops-'));
    try {
      const env = { HOME: home, SOPS_AGE_KEY: ageKey };
      const { code, stdout, stderr, spawnError } = await inSpan(
        'exec sops decrypt',
        { 'process.executable.name': 'sops' },
        () => run(sopsBin, format, content, env),
      );
      if (spawnError) throw new ManifestError(file, `cannot run sops (${sopsBin}): ${spawnError}`);
      if (code !== 0) {
        const reason = reasonOf(code, stderr);
        throw new ManifestError(file, `cannot be decrypted with secret store "${storeRef}": ${reason}`);
      }
      return stdout;
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  };
}

/** Runs `sops decrypt` on stdin with exactly `env`; resolves with the exit code and both outputs. */
function run(
  bin: string,
  format: SopsFormat,
  input: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; spawnError?: string }> {
  return new Promise((resolve) => {
    const child = spawn(bin, ['decrypt', '--input-type', format, '--output-type', format], {
      cwd: env['HOME'],
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: CALL_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e: NodeJS.ErrnoException) =>
      resolve({ code: null, stdout: '', stderr: '', spawnError: e.code ?? e.message }),
    );
    child.on('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/**
 * On a Secret whose values came from a decryption: a keyed digest of its `data` and `stringData`. The operator's
 * change detection hashes this instead of the values (src/operator/stages/apply.ts `hashObjects`), so the hash
 * recorded in an App's status (`objectHash`) cannot be used to guess a decrypted value offline.
 */
export const SECRET_DIGEST_ANNOTATION = 'cd.svc.space/secret-digest';

/**
 * `objects` with SECRET_DIGEST_ANNOTATION on every v1 Secret: HMAC-SHA256 of its values under a key derived from the
 * age identity (stable across restarts, unknown to whoever reads the status). Returns new Secret objects.
 */
export function withSecretDigests(objects: KubeObject[], ageKey: string): KubeObject[] {
  const key = createHash('sha256').update(`svc secret digest\0${ageKey}`).digest();
  return objects.map((o) => {
    if (o.kind !== 'Secret' || o.apiVersion !== 'v1') return o;
    const digest = createHmac('sha256', key)
      .update(JSON.stringify([o['data'] ?? null, o['stringData'] ?? null]))
      .digest('hex');
    const annotations = { ...(o.metadata.annotations ?? {}), [SECRET_DIGEST_ANNOTATION]: `hmac-sha256:${digest}` };
    return { ...o, metadata: { ...o.metadata, annotations } };
  });
}
