import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal } from './addresses.ts';
import { classifyNetworkFailure, networkErrorClass, OutboundRefusedError } from './errors.ts';
import { checkOutboundHost, checkOutboundURL, type OutboundPolicy, outboundFetch } from './outbound.ts';

const loopback: OutboundPolicy = { scope: 'loopback', requireHttps: false };
const privateOnly: OutboundPolicy = { scope: 'private', requireHttps: false };
const production: OutboundPolicy = { scope: 'private', requireHttps: true };

describe('addressRefusal', () => {
  it.each([
    ['169.254.169.254', 'loopback', /link-local/],
    ['0.0.0.0', 'loopback', /link-local, unspecified/],
    ['::', 'loopback', /unspecified/],
    ['fe80::1', 'loopback', /link-local/],
    ['::ffff:169.254.169.254', 'loopback', /link-local/],
    ['224.0.0.1', 'loopback', /reserved/],
    ['127.0.0.1', 'private', /loopback/],
    ['::1', 'public', /loopback/],
    ['10.1.2.3', 'public', /private/],
    ['fd00::5', 'public', /private/],
    ['nope', 'loopback', /not an IP/],
  ] as const)('refuses %s in scope %s', (ip, scope, reason) => {
    expect(addressRefusal(ip, scope)).toMatch(reason);
  });
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['192.168.1.1', 'loopback'],
    ['8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
  ] as const)('allows %s in scope %s', (ip, scope) => {
    expect(addressRefusal(ip, scope)).toBeUndefined();
  });
});

describe('checkOutboundURL', () => {
  it('refuses other schemes, userinfo, plain http in production and refused literals', () => {
    expect(() => checkOutboundURL('file:///etc/passwd', loopback)).toThrow(OutboundRefusedError);
    expect(() => checkOutboundURL('https://u:p@example.com/', loopback)).toThrow(/user name or password/);
    expect(() => checkOutboundURL('http://example.com/', production)).toThrow(/plain http/);
    expect(() => checkOutboundURL('https://169.254.169.254/latest', loopback)).toThrow(/link-local/);
    expect(() => checkOutboundURL('https://[::1]:8200/', privateOnly)).toThrow(/loopback/);
    expect(() => checkOutboundURL('not a url', loopback)).toThrow(/not a valid URL/);
    expect(checkOutboundURL('http://127.0.0.1:1/', loopback).port).toBe('1');
  });
  it('checks resolved host names too', async () => {
    await expect(checkOutboundHost('localhost', privateOnly)).rejects.toThrow(/loopback/);
    await expect(checkOutboundHost('localhost', loopback)).resolves.toBeUndefined();
  });
});

describe('outboundFetch against real loopback listeners', () => {
  let plain: http.Server;
  let plainURL = '';
  let tls: https.Server;
  let tlsURL = '';
  let blackHole: net.Server;
  let blackHoleURL = '';
  let closedURL = '';
  const dir = mkdtempSync(join(tmpdir(), 'svc-outbound-'));

  beforeAll(async () => {
    plain = http.createServer((req, res) => {
      if (req.url === '/to-metadata') res.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
      else if (req.url === '/to-self') res.writeHead(307, { location: '/ok' }).end();
      else if (req.url === '/to-self-auth') res.writeHead(302, { location: '/echo-auth' }).end();
      else if (req.url === '/to-other-origin') {
        const port = (plain.address() as AddressInfo).port;
        res.writeHead(302, { location: `http://localhost:${port}/echo-auth` }).end();
      } else if (req.url === '/echo-auth') res.end(`auth ${req.headers.authorization ?? 'none'}`);
      else res.end(`ok ${req.method}`);
    });
    plainURL = `http://127.0.0.1:${await listen(plain)}`;
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-days',
        '1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    tls = https.createServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (_req, res) => res.end('tls ok'),
    );
    tlsURL = `https://localhost:${await listen(tls)}`;
    blackHole = net.createServer(() => {
      // accepts and never answers
    });
    blackHoleURL = `http://127.0.0.1:${await listen(blackHole)}`;
    const spare = net.createServer();
    closedURL = `http://127.0.0.1:${await listen(spare)}`;
    await new Promise((r) => spare.close(r));
  });
  afterAll(async () => {
    blackHole.close();
    await Promise.all([plain, tls].map((s) => new Promise((r) => s.close(r))));
    rmSync(dir, { recursive: true, force: true });
  });

  it('SSRF (Kargo CVE-2026-32828): reaches loopback only when the policy allows it, also through a host name', async () => {
    expect(await (await outboundFetch(`${plainURL}/x`, {}, loopback)).text()).toBe('ok GET');
    await expect(outboundFetch(`${plainURL}/x`, {}, privateOnly)).rejects.toBeInstanceOf(OutboundRefusedError);
    const byName = plainURL.replace('127.0.0.1', 'localhost');
    const err = await outboundFetch(`${byName}/x`, {}, privateOnly).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRefusedError);
    expect(networkErrorClass(err)).toBe('refused');
  });

  it('SSRF (Kargo CVE-2026-32828, Fleet CVE-2026-44936): follows redirects hop by hop and refuses one to a metadata address', async () => {
    const res = await outboundFetch(`${plainURL}/to-self`, { method: 'POST', body: 'x' }, loopback);
    expect(await res.text()).toBe('ok POST');
    await expect(outboundFetch(`${plainURL}/to-metadata`, {}, loopback)).rejects.toThrow(/link-local/);
  });

  it('keeps Authorization on a redirect within the origin, drops it on one to another origin (a chart CDN, a hostile index)', async () => {
    const init = { headers: { authorization: 'Basic c2VjcmV0' } };
    expect(await (await outboundFetch(`${plainURL}/to-self-auth`, init, loopback)).text()).toBe('auth Basic c2VjcmV0');
    expect(await (await outboundFetch(`${plainURL}/to-other-origin`, init, loopback)).text()).toBe('auth none');
  });

  it('classifies tls, connect, timeout and dns failures from their real causes', async () => {
    const classOf = (p: Promise<unknown>) =>
      p.then(
        () => 'none',
        (e: unknown) => networkErrorClass(e),
      );
    expect(await classOf(outboundFetch(tlsURL, {}, loopback))).toBe('tls');
    const ca = readFileSync(join(dir, 'cert.pem'), 'utf8');
    expect(await (await outboundFetch(tlsURL, {}, loopback, { ca })).text()).toBe('tls ok');
    expect(await classOf(outboundFetch(closedURL, {}, loopback))).toBe('connect');
    expect(await classOf(outboundFetch(blackHoleURL, {}, loopback, { timeoutMs: 300 }))).toBe('timeout');
    expect(await classOf(outboundFetch('http://svc-no-such-host.invalid/', {}, loopback))).toBe('dns');
  });

  it('says what happened in words: connection refused, a plain-HTTP server asked over https, a port fetch blocks', async () => {
    const failureOf = (url: string, hints = {}) =>
      outboundFetch(url, {}, loopback).then(
        () => undefined,
        (e: unknown) => classifyNetworkFailure(new URL(url).host, e, hints),
      );
    expect(await failureOf(closedURL)).toEqual({
      errorClass: 'connect',
      message: `${new URL(closedURL).host}: connection refused (nothing listens on that port)`,
    });
    const overTls = plainURL.replace('http:', 'https:');
    expect(await failureOf(overTls)).toEqual({
      errorClass: 'tls',
      message: `${new URL(overTls).host}: TLS handshake failed: the server speaks plain HTTP, not TLS (use http://)`,
    });
    expect(await failureOf(overTls, { plainHttp: 'set insecure' })).toMatchObject({ message: /: set insecure$/ });
    // Port 1 is one of the Fetch standard's "bad ports": undici refuses it before connecting, saying only "bad port".
    expect(await failureOf('http://127.0.0.1:1/')).toEqual({
      errorClass: 'connect',
      message: expect.stringMatching(
        /^127\.0\.0\.1:1: no connection attempted: the port is one the Fetch standard blocks/,
      ),
    });
  });
});

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}
