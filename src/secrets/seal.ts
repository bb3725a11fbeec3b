/**
 * Sealing of stored credentials (contract §1: "sealed at rest, `enc:v1:` format, AES-256-GCM, keyed by
 * SVC_CREDENTIALS_KEY"). The one module every credential at rest goes through: cluster kubeconfigs, registry
 * passwords, secret-store tokens, outbound-webhook secrets.
 *
 * Format: `enc:v1:` + base64url(iv[12] ‖ ciphertext ‖ tag[16]). The caller's `context` (for example
 * `registry:<id>:password`) is bound as additional authenticated data, so a sealed value copied into another row
 * or field does not open there.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SvcError } from '../core/errors.ts';

/** Prefix of every sealed value. */
export const SEALED_PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value that cannot be opened: wrong key, wrong context, or a damaged value. Never carries plaintext. */
export class UnsealError extends SvcError {
  override readonly code = 'unseal_failed';
}

/** Whether `value` looks like a sealed value (says nothing about whether it opens). */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(SEALED_PREFIX);
}

/** Seals and opens credentials with one 32-byte key. */
export class Sealer {
  readonly #key: Buffer;

  /** `key` must be 32 bytes (config.credentialsKey). */
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the credentials key must be 32 bytes (SVC_CREDENTIALS_KEY)');
    this.#key = Buffer.from(key);
  }

  /** Seals `plaintext` for `context`; every call uses a fresh random IV, so equal inputs seal differently. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** Opens a value sealed for `context`. Throws UnsealError when it is not sealed, damaged, or keyed otherwise. */
  open(sealed: string, context: string): string {
    if (!isSealed(sealed)) throw new UnsealError(`stored credential for ${context} is not sealed`);
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new UnsealError(`stored credential for ${context} is damaged`);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      const body = raw.subarray(IV_BYTES, raw.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new UnsealError(
        `stored credential for ${context} cannot be opened (SVC_CREDENTIALS_KEY differs from the one that sealed it, or the value was altered)`,
      );
    }
  }

  /** Seals a JSON-serialisable object (e.g. a credentials map). */
  sealJson(value: unknown, context: string): string {
    return this.seal(JSON.stringify(value), context);
  }

  /** Opens a value sealed by sealJson. */
  openJson<T>(sealed: string, context: string): T {
    return JSON.parse(this.open(sealed, context)) as T;
  }
}
