/**
 * The OCI distribution client (src/registry) against Debian's docker-registry three ways — anonymous, htpasswd
 * (Basic) and token auth (Bearer, tokens from distribution's own token server) — and over https with a private
 * CA: tag → digest for OCI indexes and plain manifests, digest presence, the credential check, each failure named
 * by its cause, and plain http refused under the production policy.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RegistryClient as Client,
  RegistryClient,
  type RegistryEndpoint,
  RegistryError,
} from '../../src/registry/index.ts';
import { freePort, type Registry, startRegistry } from '../harness/index.ts';

const loopback = { scope: 'loopback', requireHttps: false } as const;

async function failure(p: Promise<unknown>): Promise<RegistryError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RegistryError) return err;
    throw err;
  }
  throw new Error('expected a RegistryError');
}

describe.each([
  { kind: 'anonymous', options: {} },
  { kind: 'basic', options: { htpasswd: { user: 'svc', password: 'basic-secret' } } },
  { kind: 'bearer', options: { token: { user: 'svc', password: 'token-secret' } } },
] as const)('registry client: $kind', ({ kind, options }) => {
  let registry: Registry;
  let endpoint: RegistryEndpoint;
  const client: Client = new RegistryClient({ policy: loopback });

  beforeAll(async () => {
    registry = await startRegistry(options);
    const creds = registry.credentials;
    endpoint = {
      host: registry.host,
      insecure: true,
      ...(creds ? { credentials: { username: creds.user, password: creds.password } } : {}),
    };
  });
  afterAll(async () => registry?.stop());

  it('resolves tags of indexes and plain manifests to the registry’s digests, and moves with the tag', async () => {
    expect(registry.auth).toBe(kind === 'anonymous' ? 'anonymous' : kind);
    const index = await registry.pushImage('svc/web', '1.0');
    const plain = await registry.pushImage('svc/web', 'plain', { index: false });
    expect(await client.resolve(endpoint, 'svc/web', '1.0')).toBe(index.digest);
    expect(index.indexDigest).toBe(index.digest);
    expect(await client.resolve(endpoint, 'svc/web', 'plain')).toBe(plain.manifestDigest);
    const moved = await registry.pushImage('svc/web', '1.0');
    expect(await client.resolve(endpoint, 'svc/web', '1.0')).toBe(moved.digest);
    expect(moved.digest).not.toBe(index.digest);
    // By digest too (an App may pin one as its tag).
    expect(await client.resolve(endpoint, 'svc/web', index.digest)).toBe(index.digest);
  });

  it('checks digest presence, and names a missing tag as notfound', async () => {
    const pushed = await registry.pushImage('svc/api', '2');
    expect(await client.has(endpoint, 'svc/api', pushed.digest)).toBe(true);
    expect(await client.has(endpoint, 'svc/api', `sha256:${'0'.repeat(64)}`)).toBe(false);
    const missing = await failure(client.resolve(endpoint, 'svc/api', 'nope'));
    expect(missing.errorClass).toBe('notfound');
    expect(missing.message).toBe(`registry ${registry.host}: svc/api tag nope not found`);
    await client.ping(endpoint);
  });

  if (kind !== 'anonymous') {
    it('refuses missing and wrong credentials as auth, without echoing a password', async () => {
      await registry.pushImage('svc/private', '1');
      const anonymous = await failure(client.resolve({ host: registry.host, insecure: true }, 'svc/private', '1'));
      expect(anonymous.errorClass).toBe('auth');
      expect(anonymous.message).toContain('credentials required');
      const wrong = { ...endpoint, credentials: { username: 'svc', password: 'wrong-password' } };
      // A fresh client: what the first one cached must not decide the answer.
      const fresh = new RegistryClient({ policy: loopback });
      const rejected = await failure(fresh.resolve(wrong, 'svc/private', '1'));
      expect(rejected.errorClass).toBe('auth');
      expect(rejected.message).toContain('credentials rejected');
      expect(rejected.message).not.toContain('wrong-password');
      expect((await failure(fresh.ping(wrong))).errorClass).toBe('auth');
    });
  }
});

describe('registry client: transport and policy', () => {
  let tls: Registry;
  let plain: Registry;
  const client = new RegistryClient({ policy: loopback });

  beforeAll(async () => {
    [tls, plain] = await Promise.all([startRegistry({ tls: true }), startRegistry()]);
  });
  afterAll(async () => Promise.all([tls?.stop(), plain?.stop()]));

  it('speaks https with the registry’s CA, and names an untrusted certificate as tls', async () => {
    const pushed = await tls.pushImage('team/web', '1');
    expect(await client.resolve({ host: tls.host, ca: tls.caPEM ?? '' }, 'team/web', '1')).toBe(pushed.digest);
    expect((await failure(client.resolve({ host: tls.host }, 'team/web', '1'))).errorClass).toBe('tls');
  });

  it('names an unreachable registry as connect, a plain-HTTP one asked over https, and refuses plain http in production mode', async () => {
    const closed = `127.0.0.1:${await freePort()}`;
    const unreachable = await failure(client.resolve({ host: closed, insecure: true }, 'team/web', '1'));
    expect(unreachable).toMatchObject({
      errorClass: 'connect',
      message: `registry ${closed}: connection refused (nothing listens on that port)`,
    });
    await plain.pushImage('team/web', '1');
    // A plain-HTTP registry asked over https: OpenSSL reads its "HTTP/1.1 400" as a bad TLS record.
    const overTls = await failure(client.resolve({ host: plain.host }, 'team/web', '1'));
    expect(overTls).toMatchObject({
      errorClass: 'tls',
      message: `registry ${plain.host}: this registry speaks plain HTTP; set \`insecure\``,
    });
    const production = new RegistryClient({ policy: { scope: 'loopback', requireHttps: true } });
    const refused = await failure(production.resolve({ host: plain.host, insecure: true }, 'team/web', '1'));
    expect(refused.errorClass).toBe('refused');
    expect(refused.message).toContain('plain http is refused in production mode');
    // Loopback addresses are outside the production default scope.
    const scoped = new RegistryClient({ policy: { scope: 'private', requireHttps: false } });
    expect((await failure(scoped.resolve({ host: plain.host, insecure: true }, 'team/web', '1'))).errorClass).toBe(
      'refused',
    );
  });
});

describe('registry client: a registry without Docker-Content-Digest', () => {
  it('hashes the manifest a GET returns', async () => {
    // A hand-written stand-in (a fake, named as such): distribution always sends Docker-Content-Digest, so the
    // fallback for registries that leave it out cannot be met with the real one.
    const manifest = JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json' });
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.accept}`);
      res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json' });
      res.end(req.method === 'GET' ? manifest : undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const digest = await new RegistryClient({ policy: loopback }).resolve({ host, insecure: true }, 'team/web', '1');
      expect(digest).toBe(`sha256:${createHash('sha256').update(manifest).digest('hex')}`);
      expect(seen.map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual([
        'HEAD /v2/team/web/manifests/1',
        'GET /v2/team/web/manifests/1',
      ]);
      expect(seen[0]).toContain('application/vnd.oci.image.index.v1+json');
      expect(seen[0]).toContain('application/vnd.docker.distribution.manifest.v2+json');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
