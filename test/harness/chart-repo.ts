import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';
import tar, { type Header } from 'tar-stream';
import { parse, stringify } from 'yaml';
import { loopbackServing } from './certs.ts';
import { registerSecret } from './leak-registry.ts';
import { binary } from './paths.ts';
import { makeTempDir, removeTempDir } from './process.ts';
import type { Registry } from './registry.ts';

/** A chart's files, by path inside the chart directory. */
export type ChartFiles = Record<string, string>;

/**
 * A small real chart (a guestbook: ConfigMap, Deployment, Service) at `version`. Its ConfigMap records what the
 * render saw: the values (`message`, `replicas`), the chart version, and `.Capabilities` (the Kubernetes version
 * and whether svc's own `cd.svc.space/v1alpha1` is served). `values-prod.yaml` sets two replicas and another message.
 */
export function guestbookChart(version: string, name = 'guestbook'): ChartFiles {
  return {
    'Chart.yaml': `apiVersion: v2\nname: ${name}\nversion: ${version}\nappVersion: "${version}"\ndescription: a guestbook\n`,
    'values.yaml': 'message: hello\nreplicas: 1\n',
    'values-prod.yaml': 'message: hello from prod\nreplicas: 2\n',
    'templates/configmap.yaml': [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: {{ .Release.Name }}-settings',
      'data:',
      '  message: {{ .Values.message | quote }}',
      '  chartVersion: {{ .Chart.Version | quote }}',
      '  kubeVersion: {{ .Capabilities.KubeVersion.Version | quote }}',
      '  svcApps: {{ .Capabilities.APIVersions.Has "cd.svc.space/v1alpha1" | quote }}',
      '  namespace: {{ .Release.Namespace | quote }}',
      '',
    ].join('\n'),
    'templates/deployment.yaml': [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: {{ .Release.Name }}',
      'spec:',
      '  replicas: {{ .Values.replicas }}',
      '  selector:',
      '    matchLabels: { app: {{ .Release.Name }} }',
      '  template:',
      '    metadata:',
      '      labels: { app: {{ .Release.Name }} }',
      '    spec:',
      '      containers:',
      '        - name: web',
      '          image: registry.invalid/guestbook:{{ .Chart.AppVersion }}',
      '',
    ].join('\n'),
    'templates/service.yaml': [
      'apiVersion: v1',
      'kind: Service',
      'metadata:',
      '  name: {{ .Release.Name }}',
      'spec:',
      '  selector: { app: {{ .Release.Name }} }',
      '  ports: [{ port: 80 }]',
      '',
    ].join('\n'),
  };
}

/** A chart that depends on `dependency` from its repository and carries no `charts/` (svc must fetch it). */
export function umbrellaChart(
  version: string,
  dependency: { name: string; version: string; repository: string },
): ChartFiles {
  return {
    'Chart.yaml': [
      'apiVersion: v2',
      'name: umbrella',
      `version: ${version}`,
      'dependencies:',
      `  - name: ${dependency.name}`,
      `    version: "${dependency.version}"`,
      `    repository: ${dependency.repository}`,
      '',
    ].join('\n'),
    'values.yaml': `${dependency.name}:\n  message: from the umbrella\n`,
    'templates/marker.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: umbrella-marker\ndata: { a: b }\n',
  };
}

/** A gzip'd tar of `files` under `<top>/` (what `helm package` makes, without its checks: for charts it refuses). */
export async function packChart(top: string, files: ChartFiles, extra: Partial<Header>[] = []): Promise<Buffer> {
  const pack = tar.pack();
  for (const [path, content] of Object.entries(files)) pack.entry({ name: `${top}/${path}`, mode: 0o644 }, content);
  for (const header of extra) {
    if (header.type === 'file') pack.entry(header as Header, '');
    else pack.entry(header as Header);
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/** Runs the pinned helm with `env` (no network use but what `args` ask for). */
async function runHelm(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      binary('helm'),
      args,
      { env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`helm ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
        // helm says some things (push's digest) on stderr.
        else resolve(`${stdout}${stderr}`);
      },
    );
    child.stdin?.end(input ?? '');
  });
}

/** Writes `files` into a fresh directory under `dir` and runs `helm package` on it; answers the archive. */
export async function helmPackage(dir: string, files: ChartFiles): Promise<Buffer> {
  const src = join(dir, `src-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(src, 'chart', path)), { recursive: true });
    await writeFile(join(src, 'chart', path), content);
  }
  const out = await runHelm(['package', join(src, 'chart'), '--destination', src]);
  const archive = /saved it to: (\S+)/.exec(out)?.[1];
  if (!archive) throw new Error(`helm package said: ${out}`);
  const bytes = await readFile(archive);
  await rm(src, { recursive: true, force: true });
  return bytes;
}

/** An HTTP(S) Helm chart repository on loopback: archives and an index.yaml made by `helm repo index`. */
export interface ChartRepo {
  /** `https://127.0.0.1:<port>` (or http without `tls`). */
  url: string;
  caPEM: string | undefined;
  credentials: { user: string; password: string } | undefined;
  /** Every request received: path and whether it carried an Authorization header. */
  requests: { path: string; authorized: boolean }[];
  /** Packages `files` (`helm package`, or svc-test's packer with `raw`), adds it and re-indexes; answers its digest. */
  publish(name: string, files: ChartFiles, options?: { raw?: boolean }): Promise<string>;
  /** Adds an archive made elsewhere as `<file>` and re-indexes. */
  add(file: string, archive: Buffer): Promise<void>;
  /**
   * Adds an archive helm would refuse to index (a hostile one) as `<name>-<version>.tgz`, listing it in index.yaml
   * by hand with its digest.
   */
  addUnchecked(name: string, version: string, archive: Buffer): Promise<void>;
  /** Replaces index.yaml with `text` (a hostile or hand-made index). */
  writeIndex(text: string): Promise<void>;
  /** The index.yaml as served now. */
  index(): Promise<string>;
  /** The archive `<file>` as served. */
  archive(file: string): Promise<Buffer>;
  stop(): Promise<void>;
}

/** Starts a chart repository (basic auth and TLS optional). */
export async function startChartRepo(
  options: { basicAuth?: { user: string; password: string }; tls?: boolean } = {},
): Promise<ChartRepo> {
  const dir = makeTempDir('charts');
  const served = join(dir, 'repo');
  await mkdir(served);
  if (options.basicAuth) registerSecret('chart repository password', options.basicAuth.password);
  const expected = options.basicAuth
    ? `Basic ${Buffer.from(`${options.basicAuth.user}:${options.basicAuth.password}`).toString('base64')}`
    : undefined;
  const requests: ChartRepo['requests'] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push({ path, authorized: req.headers.authorization !== undefined });
    if (expected && req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="charts"' }).end();
      return;
    }
    const file = normalize(join(served, path));
    if (!file.startsWith(`${served}/`)) return void res.writeHead(404).end();
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-length': body.length }).end(body),
      () => res.writeHead(404).end(),
    );
  };
  let caPEM: string | undefined;
  let server: Server;
  if (options.tls) {
    const serving = await loopbackServing(dir, 'charts');
    caPEM = serving.caPEM;
    server = createTlsServer({ key: serving.key, cert: serving.cert }, handler);
  } else {
    server = createServer(handler);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const reindex = () => runHelm(['repo', 'index', served, '--url', url]);
  const add = async (file: string, archive: Buffer) => {
    await writeFile(join(served, file), archive);
    await reindex();
  };
  return {
    url,
    caPEM,
    credentials: options.basicAuth,
    requests,
    async publish(name, files, publishOptions = {}) {
      const version = /version:\s*(\S+)/.exec(files['Chart.yaml'] ?? '')?.[1] ?? '0.0.0';
      const archive = publishOptions.raw ? await packChart(name, files) : await helmPackage(dir, files);
      await add(`${name}-${version}.tgz`, archive);
      return `sha256:${createHash('sha256').update(archive).digest('hex')}`;
    },
    add,
    async addUnchecked(name, version, archive) {
      const file = `${name}-${version}.tgz`;
      await writeFile(join(served, file), archive);
      const index = parse(await readFile(join(served, 'index.yaml'), 'utf8')) as { entries: Record<string, unknown[]> };
      index.entries[name] = [
        {
          apiVersion: 'v2',
          name,
          version,
          urls: [`${url}/${file}`],
          digest: createHash('sha256').update(archive).digest('hex'),
        },
      ];
      await writeFile(join(served, 'index.yaml'), stringify(index));
    },
    writeIndex: (text) => writeFile(join(served, 'index.yaml'), text),
    index: () => readFile(join(served, 'index.yaml'), 'utf8'),
    archive: (file) => readFile(join(served, file)),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      removeTempDir(dir);
    },
  };
}

/**
 * Pushes `files` as a chart with the real `helm push` to `oci://<registry host>/<path>` (logging in with the
 * registry's credentials in a throwaway registry config); answers the manifest digest helm reports.
 */
export async function pushChart(registry: Registry, path: string, files: ChartFiles): Promise<string> {
  const dir = makeTempDir('helm-push');
  try {
    const env = {
      HELM_REGISTRY_CONFIG: join(dir, 'registry.json'),
      HELM_CACHE_HOME: join(dir, 'cache'),
      HELM_CONFIG_HOME: join(dir, 'config'),
      HELM_DATA_HOME: join(dir, 'data'),
    };
    const plain = registry.url.startsWith('http:') ? ['--plain-http'] : [];
    const tls: string[] = [];
    if (registry.caPEM) {
      await writeFile(join(dir, 'ca.pem'), registry.caPEM);
      tls.push(`--ca-file=${join(dir, 'ca.pem')}`);
    }
    if (registry.credentials) {
      const { user, password } = registry.credentials;
      await runHelm(
        ['registry', 'login', registry.host, '-u', user, '--password-stdin', ...plain, ...tls],
        env,
        password,
      );
    }
    const archive = await helmPackage(dir, files);
    const file = join(dir, 'chart.tgz');
    await writeFile(file, archive);
    const out = await runHelm(['push', file, `oci://${registry.host}/${path}`, ...plain, ...tls], env);
    const digest = /Digest:\s*(sha256:[a-f0-9]{64})/.exec(out)?.[1];
    if (!digest) throw new Error(`helm push said: ${out}`);
    return digest;
  } finally {
    removeTempDir(dir);
  }
}
