/**
 * Which files a render decrypts. The decryption itself is a recording stand-in (a hand-written fake, named as such):
 * what is tested here is the file selection; the real sops binary decrypts in test/integration/operator-sops.test.ts.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decryptSources } from './decrypt.ts';
import type { Decrypt } from './sops.ts';

const ENCRYPTED_YAML = 'kind: Secret\nsops:\n  mac: ENC[m]\n';
const ENCRYPTED_ENV = 'A=ENC[x]\nsops_mac=ENC[m]\n';

/** Records each call and answers a marker: the stand-in for sops. */
function recordingDecrypt(): { decrypt: Decrypt; calls: string[] } {
  const calls: string[] = [];
  const decrypt: Decrypt = async (_content, format, file) => {
    calls.push(`${file}:${format}`);
    return `decrypted ${file}`;
  };
  return { calls, decrypt };
}

describe('decryptSources', () => {
  let root: string;
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function tree(files: Record<string, string>): Promise<void> {
    root = await mkdtemp(join(tmpdir(), 'svc-decrypt-test-'));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
  }

  it('Raw: decrypts the encrypted manifests under the path, in place, and nothing else', async () => {
    await tree({
      'app/secret.yaml': ENCRYPTED_YAML,
      'app/nested/other.yml': ENCRYPTED_YAML,
      'app/plain.yaml': 'kind: ConfigMap\n',
      'app/.hidden.yaml': ENCRYPTED_YAML,
      'prod/secret.yaml': ENCRYPTED_YAML,
    });
    const { decrypt, calls } = recordingDecrypt();
    const done = await decryptSources(root, join(root, 'app'), 'Raw', decrypt);
    expect(done).toEqual(['app/nested/other.yml', 'app/secret.yaml']);
    expect(calls).toEqual(['app/nested/other.yml:yaml', 'app/secret.yaml:yaml']);
    expect(await readFile(join(root, 'app/secret.yaml'), 'utf8')).toBe('decrypted app/secret.yaml');
    expect(await readFile(join(root, 'prod/secret.yaml'), 'utf8')).toBe(ENCRYPTED_YAML);
  });

  it('Kustomize: follows resources, bases, components, patches and generator inputs; skips unused files (remote entries are refused: kustomize-policy.test.ts)', async () => {
    await tree({
      'overlays/prod/kustomization.yaml': [
        'resources:',
        '- ../../base',
        '- secret.yaml',
        'components:',
        '- ../../components/extra',
        'patches:',
        '- path: patch.yaml',
        'secretGenerator:',
        '- name: gen',
        '  files:',
        '  - tls.key=keys/tls.json',
        '  envs:',
        '  - creds.env',
        '',
      ].join('\n'),
      'overlays/prod/secret.yaml': ENCRYPTED_YAML,
      'overlays/prod/patch.yaml': ENCRYPTED_YAML,
      'overlays/prod/keys/tls.json': '{"data":"ENC[x]","sops":{"mac":"ENC[m]"}}',
      'overlays/prod/creds.env': ENCRYPTED_ENV,
      'overlays/prod/unused.yaml': ENCRYPTED_YAML,
      'base/kustomization.yaml': 'resources:\n- db.yaml\n- plain.yaml\n',
      'base/db.yaml': ENCRYPTED_YAML,
      'base/plain.yaml': 'kind: ConfigMap\n',
      'components/extra/kustomization.yml': 'kind: Component\nresources:\n- extra.yaml\n',
      'components/extra/extra.yaml': ENCRYPTED_YAML,
      'overlays/staging/secret.yaml': ENCRYPTED_YAML,
    });
    const { decrypt, calls } = recordingDecrypt();
    const done = await decryptSources(root, join(root, 'overlays/prod'), 'Kustomize', decrypt);
    expect(done.sort()).toEqual([
      'base/db.yaml',
      'components/extra/extra.yaml',
      'overlays/prod/creds.env',
      'overlays/prod/keys/tls.json',
      'overlays/prod/patch.yaml',
      'overlays/prod/secret.yaml',
    ]);
    expect(calls).toContain('overlays/prod/creds.env:dotenv');
    expect(calls).toContain('overlays/prod/keys/tls.json:json');
    expect(await readFile(join(root, 'overlays/prod/unused.yaml'), 'utf8')).toBe(ENCRYPTED_YAML);
    expect(await readFile(join(root, 'overlays/staging/secret.yaml'), 'utf8')).toBe(ENCRYPTED_YAML);
  });

  it('Helm: decrypts nothing', async () => {
    await tree({ 'chart/Chart.yaml': 'name: c\n', 'chart/values.yaml': ENCRYPTED_YAML });
    const { decrypt, calls } = recordingDecrypt();
    expect(await decryptSources(root, join(root, 'chart'), 'Helm', decrypt)).toEqual([]);
    expect(calls).toEqual([]);
  });
});
