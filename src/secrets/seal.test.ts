import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSealed, SEALED_PREFIX, Sealer, UnsealError } from './seal.ts';

const sealer = new Sealer(randomBytes(32));

describe('Sealer', () => {
  it('round-trips text and JSON, and never leaves the plaintext in the sealed form', () => {
    const sealed = sealer.seal('hunter2-password', 'registry:r1:password');
    expect(sealed.startsWith(SEALED_PREFIX)).toBe(true);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('hunter2');
    expect(Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url').toString('latin1')).not.toContain('hunter2');
    expect(sealer.open(sealed, 'registry:r1:password')).toBe('hunter2-password');
    const json = sealer.sealJson({ token: 't', roleId: 'r' }, 'store:s1');
    expect(sealer.openJson(json, 'store:s1')).toEqual({ token: 't', roleId: 'r' });
  });

  it('seals equal inputs differently (fresh IV each time)', () => {
    expect(sealer.seal('same', 'c')).not.toBe(sealer.seal('same', 'c'));
  });

  it('refuses another context, another key, a tampered value and an unsealed value', () => {
    const sealed = sealer.seal('secret', 'cluster:a');
    expect(() => sealer.open(sealed, 'cluster:b')).toThrow(UnsealError);
    expect(() => new Sealer(randomBytes(32)).open(sealed, 'cluster:a')).toThrow(UnsealError);
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url');
    raw[raw.length - 20] = (raw[raw.length - 20] ?? 0) ^ 1;
    expect(() => sealer.open(SEALED_PREFIX + raw.toString('base64url'), 'cluster:a')).toThrow(UnsealError);
    expect(() => sealer.open('plain text', 'cluster:a')).toThrow(/not sealed/);
    expect(() => sealer.open(`${SEALED_PREFIX}AAAA`, 'cluster:a')).toThrow(/damaged/);
  });

  it('names the context but never the plaintext in its errors', () => {
    const sealed = sealer.seal('top-secret-value', 'store:x');
    try {
      sealer.open(sealed, 'store:y');
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toContain('store:y');
      expect((err as Error).message).not.toContain('top-secret-value');
    }
  });

  it('insists on a 32-byte key', () => {
    expect(() => new Sealer(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
