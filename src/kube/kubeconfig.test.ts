import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { KubeconfigError } from './errors.ts';
import { loadKubeconfigFile, parseKubeconfig } from './kubeconfig.ts';

const CA = '-----BEGIN CERTIFICATE-----\nY2E=\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nY2VydA==\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\na2V5\n-----END PRIVATE KEY-----\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const SECRET = 's3cr3t-token-value';

/** A one-context kubeconfig with `cluster` and `user` fields as given. */
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown> = {}, extra = {}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx',
    ...extra,
  });
}

const dir = mkdtempSync(join(tmpdir(), 'svc-kubeconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The message of the KubeconfigError `fn` throws (fails when it throws anything else, or nothing). */
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(KubeconfigError);
    return (err as Error).message;
  }
  throw new Error('expected a KubeconfigError');
}

describe('parseKubeconfig: cluster settings', () => {
  it('reads server, inline CA, tls-server-name and an http proxy', () => {
    const c = parseKubeconfig(
      kubeconfig({
        'certificate-authority-data': b64(CA),
        'tls-server-name': 'kubernetes.default',
        'proxy-url': 'http://proxy.internal:3128',
      }),
    );
    expect(c.server.href).toBe('https://127.0.0.1:6443/');
    expect(c.ca).toBe(CA);
    expect(c.serverName).toBe('kubernetes.default');
    expect(c.insecureSkipVerify).toBe(false);
    expect(c.proxyUrl?.href).toBe('http://proxy.internal:3128/');
    expect(c.origin).toBe('kubeconfig (context "ctx")');
  });

  it('reads insecure-skip-tls-verify and a CA file relative to the kubeconfig file', () => {
    writeFileSync(join(dir, 'ca.pem'), CA);
    const path = join(dir, 'file-ca.kubeconfig');
    writeFileSync(path, kubeconfig({ 'certificate-authority': 'ca.pem' }));
    expect(loadKubeconfigFile(path).ca).toBe(CA);
    expect(parseKubeconfig(kubeconfig({ 'insecure-skip-tls-verify': true })).insecureSkipVerify).toBe(true);
  });

  it('uses a named context instead of current-context', () => {
    const text = stringify({
      clusters: [
        { name: 'a', cluster: { server: 'https://a.example:6443' } },
        { name: 'b', cluster: { server: 'https://b.example:6443' } },
      ],
      users: [{ name: 'u', user: { token: SECRET } }],
      contexts: [
        { name: 'one', context: { cluster: 'a', user: 'u' } },
        { name: 'two', context: { cluster: 'b', user: 'u' } },
      ],
      'current-context': 'one',
    });
    expect(parseKubeconfig(text).server.host).toBe('a.example:6443');
    expect(parseKubeconfig(text, { context: 'two' }).server.host).toBe('b.example:6443');
  });
});

describe('parseKubeconfig: credentials', () => {
  it('sends a static token as a bearer header', async () => {
    const m = await parseKubeconfig(kubeconfig({}, { token: SECRET })).credentials.current();
    expect(m.headers['Authorization']).toBe(`Bearer ${SECRET}`);
    expect(m.cert).toBeUndefined();
  });

  it('reads a tokenFile, and again after a refresh (a rotated token)', async () => {
    const tokenPath = join(dir, 'token');
    writeFileSync(tokenPath, 'first\n');
    const path = join(dir, 'token-file.kubeconfig');
    writeFileSync(path, kubeconfig({}, { tokenFile: 'token' }));
    const creds = loadKubeconfigFile(path).credentials;
    expect((await creds.current()).headers['Authorization']).toBe('Bearer first');
    writeFileSync(tokenPath, 'second\n');
    // Cached for a minute…
    expect((await creds.current()).headers['Authorization']).toBe('Bearer first');
    // …unless the server refused it.
    expect(creds.refresh()).toBe(true);
    expect((await creds.current()).headers['Authorization']).toBe('Bearer second');
  });

  it('sends username/password as basic auth', async () => {
    const m = await parseKubeconfig(kubeconfig({}, { username: 'ada', password: SECRET })).credentials.current();
    expect(m.headers['Authorization']).toBe(`Basic ${b64(`ada:${SECRET}`)}`);
  });

  it('presents an inline client certificate and key, or ones from files', async () => {
    const inline = parseKubeconfig(
      kubeconfig({}, { 'client-certificate-data': b64(CERT), 'client-key-data': b64(KEY) }),
    );
    expect(await inline.credentials.current()).toEqual({ headers: {}, cert: CERT, key: KEY });
    writeFileSync(join(dir, 'client.crt'), CERT);
    writeFileSync(join(dir, 'client.key'), KEY);
    const path = join(dir, 'cert-files.kubeconfig');
    writeFileSync(path, kubeconfig({}, { 'client-certificate': 'client.crt', 'client-key': join(dir, 'client.key') }));
    expect(await loadKubeconfigFile(path).credentials.current()).toMatchObject({ cert: CERT, key: KEY });
  });

  it('adds impersonation headers', async () => {
    const m = await parseKubeconfig(
      kubeconfig(
        {},
        {
          token: SECRET,
          as: 'jane',
          'as-uid': '42',
          'as-groups': ['dev', 'ops'],
          'as-user-extra': { scopes: ['view'] },
        },
      ),
    ).credentials.current();
    expect(m.headers).toMatchObject({
      'Impersonate-User': 'jane',
      'Impersonate-Uid': '42',
      'Impersonate-Group': ['dev', 'ops'],
      'Impersonate-Extra-scopes': ['view'],
    });
  });

  it('has no credentials for a context without a user', async () => {
    const text = stringify({
      clusters: [{ name: 'c', cluster: { server: 'https://x:6443' } }],
      contexts: [{ name: 'ctx', context: { cluster: 'c' } }],
      'current-context': 'ctx',
    });
    expect(await parseKubeconfig(text).credentials.current()).toEqual({ headers: {} });
  });
});

describe('parseKubeconfig: clear errors, never a credential', () => {
  const cases: [string, string, RegExp][] = [
    ['not YAML', `users: [${SECRET}`, /is not valid YAML \(line \d+, column \d+\)/],
    ['not a mapping', '- a\n- b\n', /is not a kubeconfig/],
    ['wrong kind', stringify({ kind: 'Pod' }), /has kind "Pod", expected Config/],
    ['no current context', kubeconfig({}, {}, { 'current-context': '' }), /has no current-context/],
    [
      'unknown context',
      kubeconfig({}, {}, { 'current-context': 'nope' }),
      /has no context "nope" in contexts \(it has "ctx"\)/,
    ],
    ['no server', kubeconfig({ server: '' }), /cluster "c" has no server/],
    ['bad server', kubeconfig({ server: 'not a url' }), /cluster "c": server is not a URL/],
    ['ftp server', kubeconfig({ server: 'ftp://x' }), /server must be an https:\/\/ \(or http:\/\/\) URL/],
    ['CA not base64', kubeconfig({ 'certificate-authority-data': '%%%' }), /certificate-authority-data is not base64$/],
    ['CA not PEM', kubeconfig({ 'certificate-authority-data': b64('hello') }), /is not base64 of a PEM CERTIFICATE/],
    [
      'CA and insecure',
      kubeconfig({ 'certificate-authority-data': b64(CA), 'insecure-skip-tls-verify': true }),
      /sets both a certificate authority and insecure-skip-tls-verify/,
    ],
    ['insecure not boolean', kubeconfig({ 'insecure-skip-tls-verify': 'yes' }), /must be true or false/],
    ['socks proxy', kubeconfig({ 'proxy-url': 'socks5://p:1080' }), /socks5 proxies are not supported/],
    [
      'token and basic',
      kubeconfig({}, { token: SECRET, username: 'a', password: SECRET }),
      /keep one authentication method/,
    ],
    ['token and tokenFile', kubeconfig({}, { token: SECRET, tokenFile: '/x' }), /both token and tokenFile/],
    ['cert without key', kubeconfig({}, { 'client-certificate-data': b64(CERT) }), /certificate without a key/],
    [
      'cert file and data',
      kubeconfig({}, { 'client-certificate-data': b64(CERT), 'client-certificate': '/x', 'client-key-data': b64(KEY) }),
      /client-certificate and client-certificate-data are both set/,
    ],
    ['token not a string', kubeconfig({}, { token: 12345 }), /user "u": token must be a string/],
    ['groups without as', kubeconfig({}, { 'as-groups': ['x'] }), /impersonation details without as/],
    [
      'auth-provider',
      kubeconfig({}, { 'auth-provider': { name: 'gcp', config: { 'access-token': SECRET } } }),
      /uses auth-provider "gcp", which svc does not support .* use an exec credential plugin/,
    ],
    [
      'exec v1alpha1',
      kubeconfig({}, { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1alpha1' } }),
      /exec.apiVersion client.authentication.k8s.io\/v1alpha1 is not supported/,
    ],
    [
      'exec interactive',
      kubeconfig(
        {},
        { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Always' } },
      ),
      /needs a terminal/,
    ],
    [
      'exec no command',
      kubeconfig({}, { exec: { apiVersion: 'client.authentication.k8s.io/v1' } }),
      /exec has no command/,
    ],
  ];

  it.each(cases)('%s', (_label, text, message) => {
    const m = errorOf(() => parseKubeconfig(text, { trusted: true }));
    expect(m).toMatch(message);
    expect(m).not.toContain(SECRET);
    expect(m).toMatch(/^kubeconfig/);
  });

  it('names the file, and refuses one that cannot be read', () => {
    expect(errorOf(() => loadKubeconfigFile(join(dir, 'missing')))).toMatch(/^kubeconfig .*missing cannot be read/);
    const path = join(dir, 'bad.kubeconfig');
    writeFileSync(path, kubeconfig({ server: '' }));
    expect(errorOf(() => loadKubeconfigFile(path))).toBe(
      `kubeconfig ${path} (context "ctx") cluster "c" has no server`,
    );
  });

  it('refuses local files and exec plugins in an untrusted kubeconfig (one a user gave svc)', () => {
    const untrusted = [
      kubeconfig({ 'certificate-authority': '/etc/hostname' }),
      kubeconfig({}, { 'client-certificate': '/etc/hostname', 'client-key': '/etc/hostname' }),
      kubeconfig({}, { tokenFile: '/etc/hostname' }),
      kubeconfig({}, { exec: { command: 'id', apiVersion: 'client.authentication.k8s.io/v1' } }),
    ];
    for (const text of untrusted) {
      expect(errorOf(() => parseKubeconfig(text))).toMatch(/is not allowed here: .* inline/);
    }
  });
});
