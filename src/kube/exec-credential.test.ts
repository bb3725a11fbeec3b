import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CredentialError } from './errors.ts';
import { loadKubeconfigFile } from './kubeconfig.ts';

// The plugin is a real executable (a small shell script) run the way svc runs any exec plugin.
const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CERT = '-----BEGIN CERTIFICATE-----\\nY2VydA==\\n-----END CERTIFICATE-----\\n';
const KEY = '-----BEGIN PRIVATE KEY-----\\na2V5\\n-----END PRIVATE KEY-----\\n';

/**
 * Writes `plugin.sh` printing `status` (JSON text, may use $vars) as an ExecCredential of `apiVersion`; every run
 * appends its arguments, $GREETING and KUBERNETES_EXEC_INFO to runs.log. Returns a kubeconfig path using it.
 */
function setup(name: string, status: string, exec: Record<string, unknown> = {}, script?: string): string {
  const d = join(dir, name);
  mkdirSync(d);
  const apiVersion = (exec['apiVersion'] as string | undefined) ?? 'client.authentication.k8s.io/v1';
  const plugin = join(d, 'plugin.sh');
  writeFileSync(
    plugin,
    script ??
      [
        '#!/bin/sh',
        `echo "$* $GREETING $KUBERNETES_EXEC_INFO" >> "${join(d, 'runs.log')}"`,
        `printf '%s' '{"apiVersion":"${apiVersion}","kind":"ExecCredential","status":${status}}'`,
        '',
      ].join('\n'),
  );
  chmodSync(plugin, 0o755);
  const path = join(d, 'kubeconfig');
  writeFileSync(
    path,
    stringify({
      clusters: [
        {
          name: 'c',
          cluster: {
            server: 'https://10.0.0.1:443',
            extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'svc' } }],
          },
        },
      ],
      users: [
        {
          name: 'u',
          user: {
            exec: {
              // Relative with a slash: resolved against the kubeconfig's directory, as kubectl does.
              command: './plugin.sh',
              args: ['get-token', '--cluster', 'prod'],
              env: [{ name: 'GREETING', value: 'hello' }],
              apiVersion,
              interactiveMode: 'Never',
              ...exec,
            },
          },
        },
      ],
      contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'ctx',
    }),
  );
  return path;
}

const runs = (path: string) =>
  readFileSync(join(path, '..', 'runs.log'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean);

describe('exec credential plugins', () => {
  it('runs the command with its args and env, uses status.token, and caches it until expirationTimestamp', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const path = setup('token', `{"token":"tok-1","expirationTimestamp":"${future}"}`);
    const creds = loadKubeconfigFile(path).credentials;
    expect(creds.dynamic).toBe(true);
    const [a, b] = await Promise.all([creds.current(), creds.current()]);
    expect(a.headers['Authorization']).toBe('Bearer tok-1');
    expect(b.headers['Authorization']).toBe('Bearer tok-1');
    expect((await creds.current()).headers['Authorization']).toBe('Bearer tok-1');
    const log = runs(path);
    // Concurrent and later requests shared one run.
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/^get-token --cluster prod hello /);
    const info = JSON.parse((log[0] as string).replace(/^get-token --cluster prod hello /, ''));
    expect(info).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
    // A 401 drops the cached answer.
    creds.refresh();
    await creds.current();
    expect(runs(path)).toHaveLength(2);
  });

  it('runs again once the answer has expired', async () => {
    const past = new Date(Date.now() - 1000).toISOString();
    const path = setup('expired', `{"token":"tok","expirationTimestamp":"${past}"}`);
    const creds = loadKubeconfigFile(path).credentials;
    await creds.current();
    await creds.current();
    expect(runs(path)).toHaveLength(2);
  });

  it('speaks v1beta1, uses clientCertificateData/clientKeyData, and passes cluster info when asked', async () => {
    const path = setup('cert', `{"clientCertificateData":"${CERT}","clientKeyData":"${KEY}"}`, {
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      provideClusterInfo: true,
    });
    const m = await loadKubeconfigFile(path).credentials.current();
    expect(m.cert).toContain('BEGIN CERTIFICATE');
    expect(m.key).toContain('BEGIN PRIVATE KEY');
    expect(m.headers['Authorization']).toBeUndefined();
    const info = JSON.parse((runs(path)[0] as string).replace(/^get-token --cluster prod hello /, ''));
    expect(info.apiVersion).toBe('client.authentication.k8s.io/v1beta1');
    expect(info.spec.cluster).toEqual({ server: 'https://10.0.0.1:443', config: { audience: 'svc' } });
  });

  const failures: [string, string, Record<string, unknown>, string | undefined, RegExp][] = [
    [
      'a missing command',
      '{}',
      { command: 'svc-no-such-plugin', installHint: 'Install it with: apt install x' },
      undefined,
      /command not found\. Install it with: apt install x/,
    ],
    [
      'a failing command',
      '{}',
      {},
      '#!/bin/sh\necho "token expired, run login" >&2\nexit 3\n',
      /exited with code 3: token expired, run login/,
    ],
    ['output that is not JSON', '{}', {}, '#!/bin/sh\necho hello\n', /printed no ExecCredential JSON/],
    [
      'another apiVersion',
      '{}',
      {},
      '#!/bin/sh\necho \'{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"x"}}\'\n',
      /answered apiVersion "client.authentication.k8s.io\/v1beta1", but the kubeconfig asks for client.authentication.k8s.io\/v1/,
    ],
    [
      'no credential',
      '{"expirationTimestamp":"2030-01-01T00:00:00Z"}',
      {},
      undefined,
      /answered neither status.token nor/,
    ],
    [
      'a bad expiry',
      '{"token":"secret-tok","expirationTimestamp":"soon"}',
      {},
      undefined,
      /expirationTimestamp that is not a timestamp/,
    ],
  ];

  it.each(failures)('fails clearly on %s', async (label, status, exec, script, message) => {
    const path = setup(`fail-${label.replaceAll(' ', '-')}`, status, exec, script);
    const err = await loadKubeconfigFile(path)
      .credentials.current()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(CredentialError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toMatch(/^kubeconfig .* \(context "ctx"\): user "u": exec plugin /);
    expect((err as Error).message).not.toContain('secret-tok');
  });
});
