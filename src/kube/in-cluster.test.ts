import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterConfig } from './connect.ts';
import { KubeconfigError } from './errors.ts';
import { inClusterConfig } from './in-cluster.ts';

const CA = '-----BEGIN CERTIFICATE-----\nY2E=\n-----END CERTIFICATE-----\n';
const dir = mkdtempSync(join(tmpdir(), 'svc-in-cluster-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tokenPath = join(dir, 'token');
const caPath = join(dir, 'ca.crt');
writeFileSync(tokenPath, 'bound-token-1');
writeFileSync(caPath, CA);
const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };

describe('in-cluster configuration', () => {
  it('reaches the service address with the ServiceAccount token and CA', async () => {
    const c = clusterConfig({ inCluster: { env, tokenPath, caPath } });
    expect(c.origin).toBe('in-cluster');
    expect(c.server.href).toBe('https://10.96.0.1/');
    expect(c.ca).toBe(CA);
    expect((await c.credentials.current()).headers['Authorization']).toBe('Bearer bound-token-1');
  });

  it('brackets an IPv6 service address', () => {
    const c = inClusterConfig({
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' },
      tokenPath,
      caPath,
    });
    expect(c.server.host).toBe('[fd00::1]:6443');
  });

  it('re-reads the rotated token once its refresh period has passed', async () => {
    const path = join(dir, 'rotating');
    writeFileSync(path, 'old');
    const c = inClusterConfig({ env, tokenPath: path, caPath, tokenRefreshMs: 0 });
    expect((await c.credentials.current()).headers['Authorization']).toBe('Bearer old');
    writeFileSync(path, 'new');
    expect((await c.credentials.current()).headers['Authorization']).toBe('Bearer new');
  });

  it('says what is missing outside a Pod', () => {
    expect(() => inClusterConfig({ env: {}, tokenPath, caPath })).toThrow(
      /needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT/,
    );
    expect(() => inClusterConfig({ env, tokenPath: join(dir, 'none'), caPath })).toThrow(KubeconfigError);
    expect(() => inClusterConfig({ env, tokenPath: join(dir, 'none'), caPath })).toThrow(
      /ServiceAccount's .*none cannot be read/,
    );
  });
});
