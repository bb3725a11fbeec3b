import { describe, expect, it } from 'vitest';
import { envStoreRefs, type WorkloadEnvVar, workloadEnv } from './env-store.ts';

const env: WorkloadEnvVar[] = [
  { name: 'MODE', value: 'prod' },
  { name: 'DB_PASSWORD', store: { id: 'sts_vault', path: 'shop', key: 'password' } },
  { name: 'TLS', secretRef: { name: 'tls', key: 'crt' } },
  { name: 'API_TOKEN', store: { id: 'sts_eso', path: 'team/shop', key: 'token' } },
  { name: 'API_USER', store: { id: 'sts_eso', path: 'team/shop', key: 'user' } },
];
const eso = { storeName: 'vault-backend', storeKind: 'ClusterSecretStore' as const, refreshInterval: '1h' };

describe('image workload env with env.store', () => {
  it('asks the server for the store entries only, in order', () => {
    expect(envStoreRefs(env)).toEqual([
      { name: 'DB_PASSWORD', id: 'sts_vault', path: 'shop', key: 'password' },
      { name: 'API_TOKEN', id: 'sts_eso', path: 'team/shop', key: 'token' },
      { name: 'API_USER', id: 'sts_eso', path: 'team/shop', key: 'user' },
    ]);
    expect(envStoreRefs(undefined)).toEqual([]);
  });

  it('injects vault values as literals and renders one ExternalSecret per external-secrets store', () => {
    const { env: out, externalSecrets } = workloadEnv('shop', env, [
      { name: 'DB_PASSWORD', value: 's3cret' },
      { name: 'API_TOKEN', externalSecret: { ...eso, path: 'team/shop', key: 'token' } },
      { name: 'API_USER', externalSecret: { ...eso, path: 'team/shop', key: 'user' } },
    ]);
    expect(out).toEqual([
      { name: 'MODE', value: 'prod' },
      { name: 'DB_PASSWORD', value: 's3cret' },
      { name: 'TLS', valueFrom: { secretKeyRef: { name: 'tls', key: 'crt' } } },
      { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'shop-env-1', key: 'API_TOKEN' } } },
      { name: 'API_USER', valueFrom: { secretKeyRef: { name: 'shop-env-1', key: 'API_USER' } } },
    ]);
    expect(externalSecrets).toEqual([
      {
        apiVersion: 'external-secrets.io/v1',
        kind: 'ExternalSecret',
        metadata: { name: 'shop-env-1' },
        spec: {
          refreshInterval: '1h',
          secretStoreRef: { name: 'vault-backend', kind: 'ClusterSecretStore' },
          target: { name: 'shop-env-1', creationPolicy: 'Owner' },
          data: [
            { secretKey: 'API_TOKEN', remoteRef: { key: 'team/shop', property: 'token' } },
            { secretKey: 'API_USER', remoteRef: { key: 'team/shop', property: 'user' } },
          ],
        },
      },
    ]);
  });

  it('refuses to render an entry the server did not resolve', () => {
    expect(() => workloadEnv('shop', env, [{ name: 'DB_PASSWORD', value: 'x' }])).toThrow(
      'env.store entry API_TOKEN was not resolved',
    );
  });
});
