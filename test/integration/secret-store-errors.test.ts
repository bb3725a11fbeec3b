/**
 * Secret-store tests that tell the truth (contract §4.4 rule 3): every errorClass produced by its real cause — an
 * unresolvable host (dns), a self-signed TLS listener and a plain-HTTP one asked over https (tls), a closed port and a
 * port fetch blocks (connect), a black-hole listener
 * (timeout), a wrong, expired or refused credential (auth), a token without rights on the mount (permission), a mount
 * that does not exist (notfound), a KV v1 mount and a server that is not Vault (provider) — against the harness's
 * OpenBao; a saved store's status becomes error; a private CA (`caCert`) makes the TLS peer work. Then the SSRF guard
 * of a server in production mode: plain http, the cloud metadata address, loopback (literal and by name) and a
 * redirect to loopback are refused with 422 (the outbound policy is the server's setting, which the API document cannot
 * state; docs/compatibility.md).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal } from '../../src/net/addresses.ts';
import { createCA, issueCert, readPem } from '../harness/certs.ts';
import { describeWith, freePort, type OpenBao, startOpenBao } from '../harness/index.ts';
import { createOrg, signUp, startTestApi, type TestApi, type TestUser } from './api-support.ts';

type Json = Record<string, unknown>;

/** Listens on `host` port 0 and resolves with the port. */
function listen(server: Server | TcpServer, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as { port: number }).port)));
}

/** A non-loopback address of this machine that the `private` outbound scope allows (RFC 1918 or IPv6 ULA). */
function privateAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (
        !a.internal &&
        a.family === 'IPv6' &&
        !addressRefusal(a.address, 'private') &&
        addressRefusal(a.address, 'public')
      )
        return a.address;
      if (
        !a.internal &&
        a.family === 'IPv4' &&
        !addressRefusal(a.address, 'private') &&
        addressRefusal(a.address, 'public')
      )
        return a.address;
    }
  }
  return undefined;
}

describe('secret store test error classes', () => {
  let api: TestApi;
  let owner: TestUser;
  let bao: OpenBao;
  let certDir: string;
  let caPEM: string;
  const servers: (Server | TcpServer)[] = [];
  const sockets: Socket[] = [];
  let tlsURL = '';
  let blackHoleURL = '';
  let notVaultURL = '';
  let closedURL = '';

  beforeAll(async () => {
    bao = await startOpenBao();
    api = await startTestApi({ secretStores: { timeoutMs: 1500, test: { burst: 100, perMinute: 100 } } });
    owner = await signUp(api, 'owner');
    await createOrg(api, owner, `errors-${randomBytes(3).toString('hex')}`);

    certDir = mkdtempSync(join(tmpdir(), 'svc-store-tls-'));
    const ca = await createCA(certDir);
    const cert = await issueCert(certDir, ca, 'vault', {
      subject: '/CN=vault',
      usage: 'server',
      altNames: ['IP:127.0.0.1'],
    });
    caPEM = await readPem(ca.cert);
    // A TLS front of OpenBao with a certificate from a private CA: untrusted without `caCert`, working with it.
    const tls = createHttpsServer({ cert: await readPem(cert.cert), key: await readPem(cert.key) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => k === 'x-vault-token' || k === 'content-type'),
        ) as Record<string, string>;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const upstream = await fetch(`${bao.address}${req.url}`, {
          method: req.method ?? 'GET',
          headers,
          ...(body ? { body } : {}),
        });
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
      });
    });
    tlsURL = `https://127.0.0.1:${await listen(tls)}`;
    // Accepts connections and never answers.
    const blackHole = createTcpServer((s) => sockets.push(s));
    blackHoleURL = `http://127.0.0.1:${await listen(blackHole)}`;
    const notVault = createHttpServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>'),
    );
    notVaultURL = `http://127.0.0.1:${await listen(notVault)}`;
    closedURL = `http://127.0.0.1:${await freePort()}`;
    servers.push(tls, blackHole, notVault);
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await api?.close();
    await bao?.stop();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  });

  const test = (config: Json, credentials: Json = { token: bao.token }) =>
    api.call<Json>('POST', '/api/v1/secret-stores/test', {
      cookie: owner.cookie,
      body: { type: 'vault', provider: 'vault', config, credentials },
    });
  const expectClass = async (config: Json, credentials: Json | undefined, errorClass: string, message: RegExp) => {
    const res = await test(config, credentials);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'error', errorClass, latency: expect.any(Number) });
    expect(String(res.body['error'])).toMatch(message);
    expect(JSON.stringify(res.body)).not.toContain(bao.token);
  };

  it('dns: the host name does not resolve', async () => {
    await expectClass({ address: 'http://svc-no-such-host.invalid:8200' }, undefined, 'dns', /could not be resolved/);
  });

  it('tls: the certificate is not trusted; with the private CA as caCert the same server works', async () => {
    await expectClass({ address: tlsURL }, undefined, 'tls', /TLS handshake failed/);
    const trusted = await test({ address: tlsURL, caCert: caPEM });
    expect(trusted.body).toMatchObject({ status: 'connected', details: { mount: { version: '2' } } });
  });

  it('connect: nothing listens on the port', async () => {
    await expectClass({ address: closedURL }, undefined, 'connect', /connection refused/);
  });

  it('connect, not provider: a port the Fetch standard blocks (http://127.0.0.1:1), said as such', async () => {
    await expectClass(
      { address: 'http://127.0.0.1:1' },
      undefined,
      'connect',
      /^127\.0\.0\.1:1: no connection attempted: the port is one the Fetch standard blocks/,
    );
  });

  it('tls: a plain-HTTP server asked over https is named as such', async () => {
    await expectClass(
      { address: notVaultURL.replace('http:', 'https:') },
      undefined,
      'tls',
      /this server speaks plain HTTP, not TLS; use an http:\/\/ address/,
    );
  });

  it('timeout: the server accepts and never answers', async () => {
    await expectClass({ address: blackHoleURL }, undefined, 'timeout', /timed out/);
  });

  it('auth: a wrong token, an expired token, a refused AppRole login', async () => {
    await expectClass({ address: bao.address }, { token: 'hvs.wrong' }, 'auth', /invalid or expired/);
    await expectClass({ address: bao.address }, { token: await bao.expiredToken() }, 'auth', /invalid or expired/);
    await expectClass(
      { address: bao.address },
      { roleId: bao.appRole.roleId, secretId: 'not-the-secret-id' },
      'auth',
      /AppRole login at auth\/approle was refused/,
    );
  });

  it('permission: the token may not use the mount; notfound: no engine is mounted there', async () => {
    const plain = (await bao.api('POST', 'auth/token/create', { policies: ['default'], ttl: '1h' })) as {
      auth: { client_token: string };
    };
    await expectClass(
      { address: bao.address },
      { token: plain.auth.client_token },
      'permission',
      /may not read mount "secret"/,
    );
    await bao.api('PUT', 'sys/policies/acl/kvmissing', {
      policy: 'path "kvmissing/data/*" { capabilities = ["read"] }',
    });
    const scoped = (await bao.api('POST', 'auth/token/create', { policies: ['kvmissing'], ttl: '1h' })) as {
      auth: { client_token: string };
    };
    await expectClass(
      { address: bao.address, mountPath: 'kvmissing' },
      { token: scoped.auth.client_token },
      'notfound',
      /no secrets engine is mounted at "kvmissing"/,
    );
  });

  it('provider: a KV version 1 mount, and a server that is not Vault', async () => {
    await expectClass(
      { address: bao.address, mountPath: bao.kvV1Mount },
      { token: bao.rootToken },
      'provider',
      /mount "kv1" is a KV version 1 engine, not KV version 2/,
    );
    await expectClass({ address: notVaultURL }, undefined, 'provider', /something other than the Vault API/);
  });

  it('a saved store that fails its test records status error with the reason', async () => {
    const created = await api.call<Json>('POST', '/api/v1/secret-stores', {
      cookie: owner.cookie,
      body: {
        name: 'down',
        type: 'vault',
        provider: 'vault',
        config: { address: closedURL },
        credentials: { token: 't' },
      },
    });
    const id = String(created.body['id']);
    const res = await api.call<Json>('POST', `/api/v1/secret-stores/${id}/test`, { cookie: owner.cookie });
    expect(res.body).toMatchObject({ status: 'error', errorClass: 'connect' });
    const stored = await api.call<Json>('GET', `/api/v1/secret-stores/${id}`, { cookie: owner.cookie });
    expect(stored.body).toMatchObject({ status: 'error', statusDetail: String(res.body['error']) });
    expect(stored.body['lastTestedAt']).toEqual(expect.any(String));
    const eso = await api.call<Json>('POST', '/api/v1/secret-stores', {
      cookie: owner.cookie,
      body: { name: 'eso', type: 'eso', provider: 'eso', config: { storeName: 'vault-backend' } },
    });
    const untested = await api.call<Json>('POST', `/api/v1/secret-stores/${String(eso.body['id'])}/test`, {
      cookie: owner.cookie,
    });
    expect(untested.body).toMatchObject({ status: 'untested', details: { reason: expect.any(String) } });
  });
});

const privateIP = privateAddress();
describeWith({
  what: 'a private (RFC 1918 or IPv6 unique-local) address on this machine',
  missing: privateIP ? undefined : 'no interface has one (the redirect test needs a peer the private scope allows)',
})('secret store SSRF guard in production mode', () => {
  let api: TestApi;
  let owner: TestUser;
  let certDir: string;
  let caPEM = '';
  let redirectURL = '';
  let loopbackPort = 0;
  /** Requests the loopback peer received. */
  let reached = 0;
  const servers: Server[] = [];

  beforeAll(async () => {
    api = await startTestApi({
      env: { NODE_ENV: 'production', SVC_OUTBOUND_SCOPE: 'private' },
      secretStores: { timeoutMs: 3000 },
    });
    owner = await signUp(api, 'owner');
    await createOrg(api, owner, `ssrf-${randomBytes(3).toString('hex')}`);
    certDir = mkdtempSync(join(tmpdir(), 'svc-store-ssrf-'));
    const ca = await createCA(certDir);
    const ip = privateIP as string;
    const cert = await issueCert(certDir, ca, 'redirector', {
      subject: '/CN=redirector',
      usage: 'server',
      altNames: [`IP:${ip}`, 'IP:127.0.0.1'],
    });
    caPEM = await readPem(ca.cert);
    const tlsOptions = { cert: await readPem(cert.cert), key: await readPem(cert.key) };
    // A loopback peer that must never be reached, and a peer on the private address that redirects to it.
    const loopback = createHttpsServer(tlsOptions, (_req, res) => {
      reached++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
    });
    loopbackPort = await listen(loopback);
    const redirector = createHttpsServer(tlsOptions, (req, res) => {
      res.writeHead(307, { location: `https://127.0.0.1:${loopbackPort}${req.url}` }).end();
    });
    const port = await listen(redirector, ip);
    redirectURL = `https://${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
    servers.push(loopback, redirector);
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await api?.close();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  });

  const create = (name: string, address: string) =>
    api.call<Json>('POST', '/api/v1/secret-stores', {
      cookie: owner.cookie,
      body: { name, type: 'vault', provider: 'vault', config: { address, caCert: caPEM }, credentials: { token: 't' } },
    });

  it('refuses plain http, the metadata address and loopback (literal or by name) at create, with 422', async () => {
    const cases: [string, RegExp][] = [
      ['http://vault.example.com:8200', /plain http is refused in production mode/],
      ['https://169.254.169.254', /169\.254\.169\.254 is link-local, unspecified or reserved/],
      [`https://127.0.0.1:${loopbackPort}`, /127\.0\.0\.1 is loopback, refused by the outbound policy \(private\)/],
      [`https://localhost:${loopbackPort}`, /loopback, refused by the outbound policy/],
      ['https://[::ffff:169.254.169.254]', /link-local/],
    ];
    for (const [address, message] of cases) {
      const res = await create(`s-${randomBytes(2).toString('hex')}`, address);
      expect(res.status, address).toBe(422);
      expect(String(res.body['error'])).toMatch(message);
      expect(String(res.body['error'])).toMatch(/^config\.address: /);
    }
    const list = await api.call<{ items: Json[] }>('GET', '/api/v1/secret-stores', { cookie: owner.cookie });
    expect(list.body.items).toEqual([]);
  });

  it('does not follow a redirect to loopback: the test answers 422 and the loopback peer is never reached', async () => {
    const created = await create('redirecting', redirectURL);
    expect(created.status).toBe(201);
    const res = await api.call<Json>('POST', `/api/v1/secret-stores/${String(created.body['id'])}/test`, {
      cookie: owner.cookie,
    });
    expect(res.status).toBe(422);
    expect(String(res.body['error'])).toMatch(/127\.0\.0\.1 is loopback, refused by the outbound policy/);
    expect(reached).toBe(0);
    const stored = await api.call<Json>('GET', `/api/v1/secret-stores/${String(created.body['id'])}`, {
      cookie: owner.cookie,
    });
    expect(stored.body).toMatchObject({ status: 'error', statusDetail: expect.stringContaining('loopback') });
  });
});
