import { randomBytes } from 'node:crypto';
import { registerSecret, registerSecretData } from './leak-registry.ts';
import { binary } from './paths.ts';
import { freePort } from './ports.ts';
import { makeTempDir, removeTempDir, startProcess, waitUntil } from './process.ts';

/** A running OpenBao dev server with KV v2 at `secret/`, KV v1 at `kv1/`, a read-only token and an AppRole. */
export interface OpenBao {
  /** `http://127.0.0.1:<port>` (what `BAO_ADDR` / `VAULT_ADDR` would hold). */
  address: string;
  /** Root token of the dev server (for test setup only). */
  rootToken: string;
  /** Mount path of the KV v2 engine. */
  kvMount: 'secret';
  /** Mount path of a KV version 1 engine (what a KV v2 reader must refuse by name). */
  kvV1Mount: 'kv1';
  /** Name of the policy allowing reads of every secret under `secret/`. */
  policy: string;
  /** A token carrying only {@link policy}. */
  token: string;
  /** AppRole login carrying only {@link policy} (`POST /v1/auth/<mount>/login` with role_id and secret_id). */
  appRole: { mount: 'approle'; role: string; roleId: string; secretId: string };
  /** A token with {@link policy} that has expired: created with a 1 s TTL, resolved once OpenBao refuses it. */
  expiredToken(): Promise<string>;
  /** Writes a KV v2 secret at `secret/<path>` (new version each call); resolves with the version number. */
  writeSecret(path: string, data: Record<string, string>): Promise<number>;
  /** Raw API call with the root token; rejects on non-2xx. */
  api(method: string, path: string, body?: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * Starts `bao server -dev` on a free loopback port (dev mode already mounts KV v2 at `secret/`), then creates a
 * read policy, a token with it, and an AppRole (role-id and a secret-id) through the HTTP API.
 */
export async function startOpenBao(): Promise<OpenBao> {
  const dir = makeTempDir('openbao');
  const port = await freePort();
  const rootToken = `root-${randomBytes(12).toString('hex')}`;
  const address = `http://127.0.0.1:${port}`;
  const proc = startProcess(
    'bao',
    binary('openbao', 'bao'),
    ['server', '-dev', `-dev-root-token-id=${rootToken}`, `-dev-listen-address=127.0.0.1:${port}`, '-log-level=warn'],
    // HOME: the dev server writes a token helper file there; keep it out of the user's home.
    { logDir: dir, env: { ...process.env, HOME: dir, BAO_ADDR: address } },
  );
  const stop = async () => {
    await proc.stop();
    removeTempDir(dir);
  };
  try {
    await waitUntil(async () => (await fetch(`${address}/v1/sys/health`)).status === 200, {
      what: 'OpenBao /v1/sys/health',
      process: proc,
      timeoutMs: 30_000,
    });
    const api = async (method: string, path: string, body?: unknown): Promise<unknown> => {
      const res = await fetch(`${address}/v1/${path}`, {
        method,
        headers: { 'x-vault-token': rootToken, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`OpenBao ${method} ${path}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    // Dev mode mounts KV v2 at secret/ asynchronously on some versions: wait until it answers.
    await waitUntil(async () => (await api('GET', 'sys/mounts/secret')) !== undefined, {
      what: 'KV v2 at secret/',
      timeoutMs: 10_000,
    });
    await api('POST', 'sys/mounts/kv1', { type: 'kv', options: { version: '1' } });
    const policy = 'svc-read';
    await api('PUT', `sys/policies/acl/${policy}`, {
      policy:
        'path "secret/data/*" { capabilities = ["read"] }\npath "secret/metadata/*" { capabilities = ["read", "list"] }\n',
    });
    const created = (await api('POST', 'auth/token/create', {
      policies: [policy],
      no_default_policy: false,
      ttl: '2h',
    })) as {
      auth: { client_token: string };
    };
    await api('POST', 'sys/auth/approle', { type: 'approle' });
    const role = 'svc';
    await api('POST', `auth/approle/role/${role}`, { token_policies: [policy], token_ttl: '1h' });
    const roleId = ((await api('GET', `auth/approle/role/${role}/role-id`)) as { data: { role_id: string } }).data
      .role_id;
    const secretId = ((await api('POST', `auth/approle/role/${role}/secret-id`)) as { data: { secret_id: string } })
      .data.secret_id;
    registerSecret('OpenBao root token', rootToken);
    registerSecret('OpenBao policy token', created.auth.client_token);
    registerSecret('OpenBao AppRole secret-id', secretId);
    return {
      address,
      rootToken,
      kvMount: 'secret',
      kvV1Mount: 'kv1',
      policy,
      token: created.auth.client_token,
      appRole: { mount: 'approle', role, roleId, secretId },
      async expiredToken() {
        const short = (await api('POST', 'auth/token/create', { policies: [policy], ttl: '1s' })) as {
          auth: { client_token: string };
        };
        const token = short.auth.client_token;
        registerSecret('OpenBao expired token', token);
        await waitUntil(
          async () =>
            (await fetch(`${address}/v1/auth/token/lookup-self`, { headers: { 'x-vault-token': token } })).status ===
            403,
          { what: 'the 1 s token to expire', timeoutMs: 15_000, intervalMs: 250 },
        );
        return token;
      },
      async writeSecret(path, data) {
        registerSecretData(`OpenBao secret ${path}`, data);
        const res = (await api('POST', `secret/data/${path}`, { data })) as { data: { version: number } };
        return res.data.version;
      },
      api,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
