import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { createCA, issueCert, readPem } from './certs.ts';
import { request } from './http.ts';
import { registerSecret } from './leak-registry.ts';
import { binary } from './paths.ts';
import { freePort } from './ports.ts';
import { makeTempDir, removeTempDir, startProcess, waitUntil } from './process.ts';

const execFileAsync = promisify(execFile);

/** Media types used by {@link Registry.pushImage}. */
export const mediaTypes = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

/** Options for {@link startRegistry}. */
export interface RegistryOptions {
  /** Require HTTP basic auth (htpasswd file, bcrypt) with these credentials. */
  htpasswd?: { user: string; password: string };
  /** Serve HTTPS with a certificate for 127.0.0.1/localhost from a fresh CA (see {@link Registry.caPEM}). */
  tls?: boolean;
  /**
   * Token auth (Bearer): a real token issuer (distribution's contrib/token-server, built by
   * scripts/build-binaries.sh) authenticates these credentials (htpasswd) and signs tokens the registry trusts.
   * The issuer grants a user the repositories under `<user>/` only.
   */
  token?: { user: string; password: string };
  /** Listen on this port (default: a free one), e.g. to register the registry's host before it starts. */
  port?: number;
  /** Post the registry's events (distribution `notifications`) to `url` with `Authorization: Bearer <token>`. */
  notifications?: { url: string; token: string };
}

/** Digests of an image pushed by {@link Registry.pushImage}. */
export interface PushedImage {
  /** Digest the tag resolves to: the index digest (or the manifest digest when `index: false`). */
  digest: string;
  indexDigest: string | undefined;
  manifestDigest: string;
  configDigest: string;
  layerDigest: string;
  /** `<host>/<repository>@<digest>`. */
  reference: string;
}

/** A Debian `docker-registry` (distribution 2.8) on loopback, plain HTTP unless started with `tls`. */
export interface Registry {
  /** `127.0.0.1:<port>` (image references use this host). */
  host: string;
  /** `http://127.0.0.1:<port>`, or `https://` with `tls`. */
  url: string;
  /** CA certificate (PEM) to trust for `tls` registries; undefined for plain HTTP. */
  caPEM: string | undefined;
  /** Credentials when started with htpasswd or token auth. */
  credentials: { user: string; password: string } | undefined;
  /** How clients authenticate: none, Basic (htpasswd) or Bearer (token). */
  auth: 'anonymous' | 'basic' | 'bearer';
  /**
   * Pushes a small real image (gzip tar layer, OCI config, OCI manifest and, unless `index: false`, an OCI index for
   * linux/amd64) to `repository` and points `tag` at it (moving the tag if it existed). `content` makes the layer
   * differ per push, so each push yields new digests.
   */
  pushImage(repository: string, tag: string, options?: { content?: string; index?: boolean }): Promise<PushedImage>;
  /** Points `tag` at an existing manifest or index `digest` (moves a tag without pushing new content). */
  tag(repository: string, tag: string, digest: string): Promise<void>;
  /** Resolves a tag (or digest) through the registry API (HEAD manifests) to its digest. */
  resolve(repository: string, reference: string): Promise<string>;
  stop(): Promise<void>;
}

/** Starts a registry with a temp config and storage, anonymous or with htpasswd auth. */
export async function startRegistry(options: RegistryOptions = {}): Promise<Registry> {
  const dir = makeTempDir('registry');
  if (options.htpasswd) registerSecret('registry htpasswd password', options.htpasswd.password);
  if (options.token) registerSecret('registry token-auth password', options.token.password);
  if (options.notifications) registerSecret('registry notifications token', options.notifications.token);
  let issuer: { stop(): Promise<void> } | undefined;
  try {
    const port = options.port ?? (await freePort());
    const config: Record<string, unknown> = {
      version: 0.1,
      log: { level: 'warn', accesslog: { disabled: true } },
      storage: { filesystem: { rootdirectory: join(dir, 'data') }, delete: { enabled: true } },
      http: { addr: `127.0.0.1:${port}`, secret: randomBytes(16).toString('hex') },
    };
    let caPEM: string | undefined;
    if (options.tls) {
      const ca = await createCA(dir);
      const serving = await issueCert(dir, ca, 'registry', {
        subject: '/CN=svc-test-registry',
        usage: 'server',
        altNames: ['IP:127.0.0.1', 'DNS:localhost'],
      });
      caPEM = await readPem(ca.cert);
      (config['http'] as Record<string, unknown>)['tls'] = { certificate: serving.cert, key: serving.key };
    }
    if (options.htpasswd) {
      const { stdout } = await execFileAsync('htpasswd', ['-nbB', options.htpasswd.user, options.htpasswd.password]);
      const file = join(dir, 'htpasswd');
      await writeFile(file, `${stdout.trim()}\n`, { mode: 0o600 });
      config['auth'] = { htpasswd: { realm: 'svc-test-registry', path: file } };
    }
    let tokenFor: ((repository: string) => Promise<string>) | undefined;
    if (options.token) {
      const started = await startTokenIssuer(dir, options.token);
      issuer = started;
      tokenFor = started.tokenFor;
      config['auth'] = {
        token: {
          realm: started.realm,
          service: TOKEN_SERVICE,
          issuer: TOKEN_ISSUER,
          rootcertbundle: started.certPath,
        },
      };
    }
    if (options.notifications) {
      config['notifications'] = {
        endpoints: [
          {
            name: 'svc',
            url: options.notifications.url,
            headers: { Authorization: [`Bearer ${options.notifications.token}`] },
            timeout: '10s',
            threshold: 3,
            backoff: '1s',
            ignore: { mediatypes: ['application/octet-stream'] },
          },
        ],
      };
    }
    const configPath = join(dir, 'config.yml');
    await writeFile(configPath, stringify(config));
    const proc = startProcess('docker-registry', 'docker-registry', ['serve', configPath], { logDir: dir });
    const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
    const authHeader: Record<string, string> = options.htpasswd
      ? {
          authorization: `Basic ${Buffer.from(`${options.htpasswd.user}:${options.htpasswd.password}`).toString('base64')}`,
        }
      : {};
    // With token auth, /v2/ answers 401 with the challenge once the registry is up.
    const upStatus = options.token ? 401 : 200;
    await waitUntil(async () => (await request(`${url}/v2/`, { headers: authHeader, ca: caPEM })).status === upStatus, {
      what: 'registry /v2/',
      process: proc,
      timeoutMs: 30_000,
    });
    const call = async (
      method: string,
      path: string,
      init: { body?: Buffer | string; headers?: Record<string, string> } = {},
    ) => {
      const repository = /^\/v2\/(.+?)\/(?:blobs|manifests)\//.exec(path)?.[1];
      const bearer: Record<string, string> =
        tokenFor && repository ? { authorization: `Bearer ${await tokenFor(repository)}` } : {};
      const res = await request(new URL(path, url), {
        method,
        headers: { ...authHeader, ...bearer, ...init.headers },
        ca: caPEM,
        ...(init.body === undefined ? {} : { body: init.body }),
      });
      if (res.status >= 300) throw new Error(`registry ${method} ${path}: ${res.status} ${res.text()}`);
      return res;
    };
    const pushBlob = async (repository: string, data: Buffer): Promise<string> => {
      const digest = sha256(data);
      const start = await call('POST', `/v2/${repository}/blobs/uploads/`);
      const location = new URL(start.header('location') ?? '', url);
      location.searchParams.set('digest', digest);
      await call('PUT', location.pathname + location.search, {
        body: data,
        headers: { 'content-type': 'application/octet-stream' },
      });
      return digest;
    };
    const putManifest = async (repository: string, reference: string, mediaType: string, body: string) => {
      await call('PUT', `/v2/${repository}/manifests/${reference}`, { body, headers: { 'content-type': mediaType } });
      return sha256(Buffer.from(body));
    };
    const registry: Registry = {
      host: `127.0.0.1:${port}`,
      url,
      caPEM,
      credentials: options.htpasswd ?? options.token,
      auth: options.token ? 'bearer' : options.htpasswd ? 'basic' : 'anonymous',
      async pushImage(repository, tag, pushOptions = {}) {
        const content = pushOptions.content ?? randomBytes(8).toString('hex');
        const tar = tarFile('hello.txt', `${content}\n`);
        const layer = gzipSync(tar);
        const layerDigest = await pushBlob(repository, layer);
        const config = Buffer.from(
          JSON.stringify({
            architecture: 'amd64',
            os: 'linux',
            config: { Cmd: ['/bin/true'] },
            rootfs: { type: 'layers', diff_ids: [sha256(tar)] },
          }),
        );
        const configDigest = await pushBlob(repository, config);
        const manifest = JSON.stringify({
          schemaVersion: 2,
          mediaType: mediaTypes.manifest,
          config: { mediaType: mediaTypes.config, digest: configDigest, size: config.length },
          layers: [{ mediaType: mediaTypes.layer, digest: layerDigest, size: layer.length }],
        });
        const useIndex = pushOptions.index ?? true;
        const manifestDigest = await putManifest(
          repository,
          useIndex ? sha256(Buffer.from(manifest)) : tag,
          mediaTypes.manifest,
          manifest,
        );
        let indexDigest: string | undefined;
        if (useIndex) {
          const index = JSON.stringify({
            schemaVersion: 2,
            mediaType: mediaTypes.index,
            manifests: [
              {
                mediaType: mediaTypes.manifest,
                digest: manifestDigest,
                size: Buffer.byteLength(manifest),
                platform: { architecture: 'amd64', os: 'linux' },
              },
            ],
          });
          indexDigest = await putManifest(repository, tag, mediaTypes.index, index);
        }
        const digest = indexDigest ?? manifestDigest;
        return {
          digest,
          indexDigest,
          manifestDigest,
          configDigest,
          layerDigest,
          reference: `${registry.host}/${repository}@${digest}`,
        };
      },
      async tag(repository, tag, digest) {
        const res = await call('GET', `/v2/${repository}/manifests/${digest}`, {
          headers: { accept: `${mediaTypes.index}, ${mediaTypes.manifest}` },
        });
        const mediaType = res.header('content-type') ?? mediaTypes.manifest;
        await putManifest(repository, tag, mediaType, res.text());
      },
      async resolve(repository, reference) {
        const res = await call('HEAD', `/v2/${repository}/manifests/${reference}`, {
          headers: { accept: `${mediaTypes.index}, ${mediaTypes.manifest}` },
        });
        const digest = res.header('docker-content-digest');
        if (!digest) throw new Error(`registry: no digest for ${repository}:${reference}`);
        return digest;
      },
      async stop() {
        await proc.stop();
        await issuer?.stop();
        removeTempDir(dir);
      },
    };
    return registry;
  } catch (error) {
    await issuer?.stop();
    removeTempDir(dir);
    throw error;
  }
}

const TOKEN_SERVICE = 'svc-test-registry';
const TOKEN_ISSUER = 'svc-test-token-issuer';

/**
 * Starts distribution's token server (a real Bearer-token issuer) with an htpasswd file holding `credentials` and a
 * fresh P-256 signing key whose self-signed certificate the registry trusts (`rootcertbundle`).
 */
async function startTokenIssuer(dir: string, credentials: { user: string; password: string }) {
  const key = join(dir, 'token.key');
  const certPath = join(dir, 'token.crt');
  // libtrust (the issuer's key loader) reads SEC 1 "EC PRIVATE KEY" PEM.
  await execFileAsync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
  await execFileAsync('openssl', [
    'req',
    '-new',
    '-x509',
    '-key',
    key,
    '-subj',
    '/CN=svc-test-token',
    '-days',
    '30',
    '-out',
    certPath,
  ]);
  const { stdout } = await execFileAsync('htpasswd', ['-nbB', credentials.user, credentials.password]);
  const passwd = join(dir, 'token.htpasswd');
  await writeFile(passwd, `${stdout.trim()}\n`, { mode: 0o600 });
  const port = await freePort();
  const realm = `http://127.0.0.1:${port}/token/`;
  const proc = startProcess(
    'token-server',
    binary('token-server'),
    ['-addr', `127.0.0.1:${port}`, '-issuer', TOKEN_ISSUER, '-passwd', passwd, '-realm', TOKEN_SERVICE, '-key', key],
    { logDir: dir },
  );
  const basic = `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
  const tokenFor = async (repository: string): Promise<string> => {
    const query = new URLSearchParams({ service: TOKEN_SERVICE, scope: `repository:${repository}:pull,push` });
    const res = await request(`${realm}?${query}`, { headers: { authorization: basic } });
    if (res.status !== 200) throw new Error(`token server: ${res.status} ${res.text()}`);
    return (JSON.parse(res.text()) as { access_token?: string; token?: string }).access_token ?? '';
  };
  await waitUntil(async () => (await request(realm).catch(() => ({ status: 0 }))).status === 401, {
    what: 'token server',
    process: proc,
    timeoutMs: 30_000,
  });
  return { realm, certPath, tokenFor, stop: () => proc.stop() };
}

function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** A POSIX ustar archive holding one regular file (enough for a real, extractable image layer). */
function tarFile(name: string, content: string): Buffer {
  const data = Buffer.from(content);
  const header = Buffer.alloc(512);
  const put = (value: string, offset: number, length: number) => header.write(value, offset, length, 'utf8');
  const octal = (value: number, length: number) => value.toString(8).padStart(length - 1, '0');
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(data.length, 12), 124, 12);
  put(octal(0, 12), 136, 12);
  put('        ', 148, 8);
  put('0', 156, 1);
  put('ustar\u000000', 257, 8);
  let sum = 0;
  for (const byte of header) sum += byte;
  put(`${octal(sum, 7)}\u0000 `, 148, 8);
  const padding = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header, data, padding, Buffer.alloc(1024)]);
}
