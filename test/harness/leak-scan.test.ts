import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  captureForLeakScan,
  LEAK_DIR_ENV,
  LeakScanLog,
  registerSecret,
  removeLeakSpool,
  scanLeakSpool,
  setLeakContext,
  startLeakSpool,
} from './leak-registry.ts';
import { captureResponse, registerRequestSecrets } from './leak-responses.ts';
import { findLeaks, SecretMatcher } from './leak-scan.ts';

const secret = () => `planted-${randomBytes(12).toString('hex')}`;

describe('leak scanner', () => {
  it('finds a planted secret as written, JSON-escaped and in base64, and names the label, not the value', () => {
    const plain = secret();
    const pem = `-----BEGIN PRIVATE KEY-----\n${randomBytes(48).toString('base64')}\n-----END PRIVATE KEY-----\n`;
    const leaks = findLeaks(
      { password: plain, key: pem },
      {
        texts: {
          log: `{"msg":"login","password":"${plain}"}`,
          response: JSON.stringify({ kubeconfig: pem }),
          secret: JSON.stringify({ data: { password: Buffer.from(plain).toString('base64') } }),
          clean: 'nothing here',
        },
      },
    );
    expect(leaks).toEqual([
      { secret: 'password', where: 'log' },
      { secret: 'key', where: 'response' },
      { secret: 'password', where: 'secret' },
    ]);
    expect(JSON.stringify(leaks)).not.toContain(plain);
  });

  it('reads files under a directory as bytes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leak-scan-test-'));
    try {
      const plain = secret();
      writeFileSync(join(dir, 'db.sqlite'), Buffer.concat([randomBytes(100), Buffer.from(plain), randomBytes(100)]));
      expect(findLeaks({ token: plain }, { dirs: [dir] })).toEqual([
        { secret: 'token', where: join(dir, 'db.sqlite') },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds many secrets at any offset in one pass, and only those present', () => {
    const secrets = Array.from({ length: 200 }, (_, i) => ({ label: `s${i}`, value: secret() }));
    const matcher = new SecretMatcher(secrets);
    const text = Buffer.from(`${secrets[0]?.value}${'x'.repeat(1000)}${secrets[199]?.value}`);
    expect([...matcher.labelsIn(text)].sort()).toEqual(['s0', 's199']);
    expect(matcher.labelsIn(Buffer.from('planted-'.repeat(100))).size).toBe(0);
  });

  it('refuses a value too short to scan for', () => {
    expect(() => findLeaks({ pin: '1234' }, {})).toThrow(/too short/);
  });
});

describe('the run-wide leak spool', () => {
  let dir: string;
  beforeEach(() => {
    dir = startLeakSpool();
    setLeakContext('test/integration/example.test.ts');
  });
  afterEach(() => {
    removeLeakSpool(dir);
    delete process.env[LEAK_DIR_ENV];
    setLeakContext('');
  });

  it('catches a planted value in a response, a log and a watch stream, naming label, file and place', () => {
    const [inBody, inLog, inStream] = [secret(), secret(), secret()];
    registerSecret('planted password', inBody);
    registerSecret('planted token', inLog);
    registerSecret('planted key', inStream);
    captureResponse('GET', '/api/v1/registries/r1?x=1', 200, JSON.stringify({ password: inBody }));
    const log = new LeakScanLog('in-process API server log');
    log.write(`{"level":30,"msg":"token ${inLog}"}\n`);
    log.flush();
    captureForLeakScan('clean', 'nothing to see');
    // A watch's output straddling the scan's 1 MiB chunk boundary.
    writeFileSync(join(dir, 'stream-plane Events.log'), `${'e'.repeat((1 << 20) - 10)}${inStream}`);
    const scan = scanLeakSpool(dir);
    expect(scan.secrets).toBe(3);
    expect(scan.leaks).toEqual([
      { secret: 'planted key (registered by test/integration/example.test.ts)', where: 'plane Events' },
      {
        secret: 'planted password (registered by test/integration/example.test.ts)',
        where: 'test/integration/example.test.ts: response GET /api/v1/registries/r1 200',
      },
      {
        secret: 'planted token (registered by test/integration/example.test.ts)',
        where: 'test/integration/example.test.ts: in-process API server log',
      },
    ]);
  });

  it('registers a shown-once secret and excludes only its own field of its own answer', () => {
    const key = `svc_${randomBytes(16).toString('hex')}`;
    captureResponse('POST', '/api/v1/auth/api-keys', 201, JSON.stringify({ id: 'k1', key }));
    expect(scanLeakSpool(dir).leaks).toEqual([]);
    captureResponse('GET', '/api/v1/auth/api-keys', 200, JSON.stringify({ keys: [{ id: 'k1', key }] }));
    expect(scanLeakSpool(dir).leaks.map((l) => l.where)).toEqual([
      'test/integration/example.test.ts: response GET /api/v1/auth/api-keys 200',
    ]);
  });

  it('takes a nested shown-once field (a shell attach token) out of its own answer only', () => {
    const token = secret();
    const shell = { shell: { id: 's1', attach: { server: 'https://x', token } } };
    captureResponse('POST', '/api/v1/clusters/east/shell', 201, JSON.stringify(shell));
    expect(scanLeakSpool(dir).leaks).toEqual([]);
    captureResponse('GET', '/api/v1/clusters/east', 200, JSON.stringify({ cluster: { note: token } }));
    expect(scanLeakSpool(dir).leaks.map((l) => l.where)).toEqual([
      'test/integration/example.test.ts: response GET /api/v1/clusters/east 200',
    ]);
  });

  it("leaves out only the operator channel's successful kubeconfig answer", () => {
    const token = secret();
    registerSecret('cluster token', token);
    const kubeconfig = `users: [{user: {token: ${token}}}]`;
    captureResponse('GET', '/internal/clusters/north/kubeconfig?org_namespace=org-a', 200, kubeconfig);
    expect(scanLeakSpool(dir).leaks).toEqual([]);
    captureResponse('GET', '/internal/clusters/north/kubeconfig', 502, JSON.stringify({ error: kubeconfig }));
    captureResponse('GET', '/api/v1/clusters/north', 200, kubeconfig);
    expect(scanLeakSpool(dir).leaks.map((l) => l.where)).toEqual([
      'test/integration/example.test.ts: response GET /internal/clusters/north/kubeconfig 502',
      'test/integration/example.test.ts: response GET /api/v1/clusters/north 200',
    ]);
  });

  it('registers the credentials a request hands to svc: registry password, store credentials, kubeconfig token', () => {
    const [password, storeToken, clusterToken] = [secret(), secret(), secret()];
    registerRequestSecrets('POST', '/api/v1/registries', { name: 'r', password });
    registerRequestSecrets('PATCH', '/api/v1/secret-stores/s1', { credentials: { token: storeToken, role: 'x' } });
    registerRequestSecrets('POST', '/api/v1/clusters', {
      kubeconfig: `users: [{name: u, user: {token: ${clusterToken}}}]`,
    });
    registerRequestSecrets('POST', '/api/v1/clusters', { kubeconfig: ': not yaml [' });
    captureResponse('GET', '/api/v1/everything', 200, JSON.stringify([password, storeToken, clusterToken]));
    expect(scanLeakSpool(dir).leaks.map((l) => l.secret)).toEqual([
      'registry password (registered by test/integration/example.test.ts)',
      'secret-store credential token (registered by test/integration/example.test.ts)',
      'cluster kubeconfig user u token (registered by test/integration/example.test.ts)',
    ]);
  });

  it('never prints a value, even where the place itself quotes it', () => {
    const planted = secret();
    registerSecret('planted', planted);
    captureResponse('GET', `/api/v1/apps/${planted}`, 404, JSON.stringify({ error: `no app ${planted}` }));
    const [leak] = scanLeakSpool(dir).leaks;
    expect(leak?.where).toBe(
      'test/integration/example.test.ts: response GET /api/v1/apps/[planted (registered by test/integration/example.test.ts)] 404',
    );
  });

  it('does nothing outside the integration run (no spool)', () => {
    delete process.env[LEAK_DIR_ENV];
    registerSecret('planted', secret());
    captureForLeakScan('x', 'y');
    process.env[LEAK_DIR_ENV] = dir;
    expect(scanLeakSpool(dir)).toEqual({ secrets: 0, captures: 0, bytes: 0, leaks: [] });
  });
});
