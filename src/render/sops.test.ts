import { describe, expect, it } from 'vitest';
import { formatOf, isEncryptedObject, isSopsEncrypted, SECRET_DIGEST_ANNOTATION, withSecretDigests } from './sops.ts';
import type { KubeObject } from './types.ts';

const encryptedYaml = `apiVersion: v1
kind: Secret
metadata:
    name: db
stringData:
    password: ENC[AES256_GCM,data:abc=,iv:x=,tag:y=,type:str]
sops:
    age:
        - recipient: age1xyz
          enc: x
    mac: ENC[AES256_GCM,data:m=,iv:i=,tag:t=,type:str]
    version: 3.13.3
`;

describe('SOPS file detection', () => {
  it('takes the format from the file name', () => {
    expect(formatOf('a/secret.yaml')).toBe('yaml');
    expect(formatOf('a/secret.YML')).toBe('yaml');
    expect(formatOf('s.json')).toBe('json');
    expect(formatOf('creds.env')).toBe('dotenv');
    expect(formatOf('key.pem')).toBe('binary');
  });

  it('recognises a sops metadata block with a MAC, and nothing else', () => {
    expect(isSopsEncrypted(encryptedYaml, 'yaml')).toBe(true);
    expect(isSopsEncrypted(`---\nkind: ConfigMap\n---\n${encryptedYaml}`, 'yaml')).toBe(true);
    expect(isSopsEncrypted('kind: ConfigMap\ndata:\n  sops: "a word"\n', 'yaml')).toBe(false);
    expect(isSopsEncrypted('sops:\n  version: 3\n', 'yaml')).toBe(false);
    expect(isSopsEncrypted('sops: [unclosed', 'yaml')).toBe(false);
    expect(isSopsEncrypted('{"data":"ENC[x]","sops":{"mac":"ENC[m]"}}', 'json')).toBe(true);
    expect(isSopsEncrypted('{"data":"ENC[x]","sops":{"mac":"ENC[m]"}}', 'binary')).toBe(true);
    expect(isSopsEncrypted('{"sops":"no"}', 'json')).toBe(false);
    expect(isSopsEncrypted('A=ENC[x]\nsops_mac=ENC[m]\nsops_version=3.13.3\n', 'dotenv')).toBe(true);
    expect(isSopsEncrypted('A=plain\n', 'dotenv')).toBe(false);
  });

  it('says whether a rendered object still carries SOPS metadata', () => {
    expect(isEncryptedObject({ kind: 'Secret', sops: { mac: 'ENC[m]' } })).toBe(true);
    expect(isEncryptedObject({ kind: 'Secret', stringData: { sops: 'x' } })).toBe(false);
  });
});

describe('withSecretDigests', () => {
  const secret = (value: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', annotations: { keep: 'me' } },
    stringData: { password: value },
  });
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } };
  const digest = (o: KubeObject | undefined) => o?.metadata.annotations?.[SECRET_DIGEST_ANNOTATION];

  it('annotates Secrets with a keyed digest that follows the values and the key, and leaves the rest alone', () => {
    const [a, c] = withSecretDigests([secret('one'), cm], 'AGE-SECRET-KEY-1A');
    expect(digest(a)).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(a?.metadata.annotations?.['keep']).toBe('me');
    expect(a?.['stringData']).toEqual({ password: 'one' });
    expect(c).toBe(cm);
    expect(digest(withSecretDigests([secret('one')], 'AGE-SECRET-KEY-1A')[0])).toBe(digest(a));
    expect(digest(withSecretDigests([secret('two')], 'AGE-SECRET-KEY-1A')[0])).not.toBe(digest(a));
    expect(digest(withSecretDigests([secret('one')], 'AGE-SECRET-KEY-1B')[0])).not.toBe(digest(a));
  });
});
