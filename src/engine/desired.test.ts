import { describe, expect, it } from 'vitest';
import { SECRET_DIGEST_ANNOTATION } from '../render/index.ts';
import { hashObjects } from './desired.ts';

const secret = (value: string, digest?: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's', ...(digest ? { annotations: { [SECRET_DIGEST_ANNOTATION]: digest } } : {}) },
  stringData: { password: value },
});

describe('hashObjects', () => {
  it('follows every change of what would be applied', () => {
    expect(hashObjects([secret('a')])).not.toBe(hashObjects([secret('b')]));
  });

  it('hashes a Secret carrying a keyed digest by that digest, never by its values', () => {
    expect(hashObjects([secret('a', 'hmac-sha256:1')])).toBe(hashObjects([secret('b', 'hmac-sha256:1')]));
    expect(hashObjects([secret('a', 'hmac-sha256:1')])).not.toBe(hashObjects([secret('a', 'hmac-sha256:2')]));
  });
});
