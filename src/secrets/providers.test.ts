import { describe, expect, it } from 'vitest';
import { InputError } from '../core/errors.ts';
import { PROVIDERS, providerOf, UNREGISTERED_SOPS_PROVIDERS, validateFields } from './providers.ts';

describe('secret-store providers', () => {
  it('registers vault, openbao, age and eso, each with described config and credential schemas', () => {
    expect(PROVIDERS.map((p) => `${p.type}/${p.provider}`)).toEqual([
      'vault/vault',
      'vault/openbao',
      'sops/age',
      'eso/eso',
    ]);
    for (const p of PROVIDERS) {
      expect((p.config as { description?: unknown }).description, p.provider).toEqual(expect.any(String));
      expect((p.credentials as { description?: unknown }).description, p.provider).toEqual(expect.any(String));
    }
  });

  it('refuses unregistered SOPS key services and mismatched type/provider with a 400 naming what is registered', () => {
    for (const provider of UNREGISTERED_SOPS_PROVIDERS) {
      const err = (() => {
        try {
          providerOf('sops', provider);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toBe(
        `provider "${provider}" is not registered for type sops (svc decrypts SOPS files with age keys only): use age`,
      );
    }
    expect(() => providerOf('vault', 'age')).toThrow(
      'provider "age" is not registered for type vault: use vault or openbao',
    );
    expect(() => providerOf('kms', 'age')).toThrow('type "kms" is not a secret-store type (one of vault, sops, eso)');
    expect(providerOf('vault', 'openbao').testable).toBe(true);
    expect(providerOf('eso', 'eso').testable).toBe(false);
  });

  it('validates config and credentials, filling in defaults', () => {
    const vault = providerOf('vault', 'vault');
    const config: Record<string, unknown> = { address: 'https://vault.example.com' };
    validateFields(vault.config, config, 'config');
    expect(config).toEqual({ address: 'https://vault.example.com', mountPath: 'secret', authMount: 'approle' });
    expect(() => validateFields(vault.config, { address: 'x', mountPath: '/bad/' }, 'config')).toThrow(
      /config\.mountPath/,
    );
    expect(() => validateFields(vault.config, { address: 'x', port: 1 }, 'config')).toThrow(
      'config has unknown field "port"',
    );
    validateFields(vault.credentials, { token: 't' }, 'credentials');
    validateFields(vault.credentials, { roleId: 'r', secretId: 's' }, 'credentials');
    // A union says what fits instead of every branch's complaint.
    expect(() => validateFields(vault.credentials, { roleId: 'r' }, 'credentials')).toThrow(
      /^credentials: Either a token, or an AppRole roleId and secretId/,
    );
    const age = providerOf('sops', 'age');
    expect(() => validateFields(age.credentials, { privateKey: 'AGE-SECRET-KEY-1short' }, 'credentials')).toThrow(
      /credentials\.privateKey/,
    );
    const eso: Record<string, unknown> = { storeName: 'vault-backend' };
    validateFields(providerOf('eso', 'eso').config, eso, 'config');
    expect(eso).toEqual({ storeName: 'vault-backend', storeKind: 'ClusterSecretStore', refreshInterval: '1h' });
  });
});
