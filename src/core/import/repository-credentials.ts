/**
 * A repository payload and its credentials from the keys of a Secret, whichever tool wrote it: Argo CD repository
 * Secrets (`username`, `password`, `sshPrivateKey`, `tlsClientCertData`, `tlsClientCertKey`) and Flux source Secrets
 * (`username`, `password`, `identity`, `known_hosts`, `ca.crt`, `tls.crt`, `tls.key`). The secret values go into
 * the returned credentials only; the payload says which were found.
 */
import type { RepositoryCredentials, RepositoryType } from '../repository.ts';
import type { FieldLedger } from './ledger.ts';
import type { RepositoryPayload } from './types.ts';

/** Which Secret key holds each credential. */
export interface CredentialKeys {
  username: string;
  password: string;
  sshPrivateKey: string;
  knownHosts?: string;
  ca?: string;
  tlsClientCert: string;
  tlsClientKey: string;
}

export const ARGO_KEYS: CredentialKeys = {
  username: 'username',
  password: 'password',
  sshPrivateKey: 'sshPrivateKey',
  tlsClientCert: 'tlsClientCertData',
  tlsClientKey: 'tlsClientCertKey',
};

export const FLUX_KEYS: CredentialKeys = {
  username: 'username',
  password: 'password',
  sshPrivateKey: 'identity',
  knownHosts: 'known_hosts',
  ca: 'ca.crt',
  tlsClientCert: 'tls.crt',
  tlsClientKey: 'tls.key',
};

/** The payload and credentials of a repository from `data` (the Secret's decoded keys), noted under `prefix`. */
export function repositoryFrom(
  base: { name: string; type: RepositoryType; url: string },
  data: ReadonlyMap<string, string>,
  keys: CredentialKeys,
  l: FieldLedger,
  prefix: string,
): { payload: RepositoryPayload; credentials: RepositoryCredentials } {
  const at = (key: string) => `${prefix}["${key}"]`;
  const value = (key: string | undefined, to: string): string | undefined => {
    if (key === undefined) return undefined;
    const v = data.get(key);
    if (v !== undefined) l.mapped(at(key), to);
    return v === '' ? undefined : v;
  };
  const credentials: RepositoryCredentials = {};
  const username = value(keys.username, 'username');
  const password = value(keys.password, 'password (sealed)');
  const ssh = value(keys.sshPrivateKey, 'ssh_private_key (sealed)');
  const knownHosts = value(keys.knownHosts, 'known_hosts');
  const ca = value(keys.ca, 'ca');
  const cert = value(keys.tlsClientCert, 'tls_client_cert');
  const key = value(keys.tlsClientKey, 'tls_client_key (sealed)');
  if (username) credentials.username = username;
  if (password) credentials.password = password;
  if (ssh) credentials.sshPrivateKey = ssh;
  if (knownHosts) credentials.knownHosts = knownHosts;
  if (ca) credentials.ca = ca;
  if (cert) credentials.tlsClientCert = cert;
  if (key) credentials.tlsClientKey = key;
  const payload: RepositoryPayload = {
    ...base,
    ...(username ? { username } : {}),
    ...(knownHosts ? { known_hosts: knownHosts } : {}),
    ...(ca ? { ca } : {}),
    ...(cert ? { tls_client_cert: cert } : {}),
    has_password: password !== undefined,
    has_ssh_private_key: ssh !== undefined,
    has_tls_client_key: key !== undefined,
  };
  return { payload, credentials };
}
