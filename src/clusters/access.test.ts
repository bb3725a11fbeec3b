import { describe, expect, it } from 'vitest';
import { InputError } from '../core/errors.ts';
import { checkKubeconfig, checkServerURL, connectCluster } from './access.ts';

const kubeconfig = (user: Record<string, unknown>, cluster: Record<string, unknown> = {}) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    clusters: [{ name: 'k', cluster: { server: 'https://10.0.0.1:6443', ...cluster } }],
    users: [{ name: 'u', user }],
  });

const loopback = { scope: 'loopback' as const, requireHttps: false };
const privateScope = { scope: 'private' as const, requireHttps: true };

describe('registered cluster access', () => {
  it('accepts inline credentials', () => {
    expect(() => checkKubeconfig(kubeconfig({ token: 'secret-token' }))).not.toThrow();
  });

  it('refuses unparseable kubeconfigs, exec and auth-provider users, file references and proxies, quoting no secret', () => {
    const refused = [
      'clusters: [unclosed',
      kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws' } }),
      kubeconfig({ 'auth-provider': { name: 'gcp', config: { 'access-token': 'ya29.secret' } } }),
      kubeconfig({ tokenFile: '/var/run/secrets/token' }),
      kubeconfig({ 'client-certificate': '/etc/passwd', 'client-key': '/etc/shadow' }),
      kubeconfig({ token: 'secret-token' }, { 'proxy-url': 'http://proxy:3128' }),
    ];
    for (const text of refused) {
      let error: unknown;
      try {
        checkKubeconfig(text);
      } catch (err) {
        error = err;
      }
      expect(error, text).toBeInstanceOf(InputError);
      expect(String((error as Error).message)).not.toMatch(/secret/);
    }
  });

  it('wants https server URLs the outbound policy allows', () => {
    expect(checkServerURL('https://127.0.0.1:6443', loopback).port).toBe('6443');
    expect(() => checkServerURL('http://127.0.0.1:6443', loopback)).toThrow(/https/);
    expect(() => checkServerURL('https://169.254.169.254', loopback)).toThrow(/link-local/);
    expect(() => checkServerURL('https://127.0.0.1:6443', privateScope)).toThrow(/loopback/);
    expect(() => checkServerURL('https://u:p@10.0.0.1', privateScope)).toThrow(/user name/);
    expect(() => checkServerURL('not a url', privateScope)).toThrow(/not a URL/);
  });

  it('connects to the record’s server_url, not the kubeconfig’s server', () => {
    const { client } = connectCluster(
      { name: 'east', serverURL: 'https://10.1.2.3:8443', kubeconfig: kubeconfig({ token: 't' }) },
      { outbound: privateScope },
    );
    expect(client.server.toString()).toBe('https://10.1.2.3:8443/');
    expect(client.config.lookup).toBeTypeOf('function');
  });
});
