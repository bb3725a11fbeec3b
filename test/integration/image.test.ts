/**
 * The container image, built here without a Docker engine: `npm run image` (scripts/build-image.sh: mmdebstrap,
 * umoci) builds it and pushes it to the harness registry (Debian's docker-registry) with skopeo; the registry serves
 * it under the digest the build computed. The image is then pulled back BY DIGEST, unpacked with umoci, and run as
 * a container runtime would run it: its root filesystem mounted read-only (as the chart's securityContext asks),
 * tmpfs on /tmp, /home/svc and /var/lib/svc (the chart's volumes), new mount and PID namespaces (unshare), chroot,
 * the image's user, working directory, environment and entrypoint. There `svc --version` answers the package
 * version, its git, helm, kustomize and sops are the pinned ones, svc's modules load from the compile cache built
 * into the image (never stripped anew), and `svc server` serves on SQLite: health, a sign-up written to its
 * database, a sign-in read back from it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeWith,
  freePort,
  pinnedVersion,
  type Registry,
  type Requirement,
  repoRoot,
  startRegistry,
  waitUntil,
} from '../harness/index.ts';
import { type ManagedProcess, makeTempDir, removeTempDir, startProcess } from '../harness/process.ts';

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };

/** The tools the build and this test use, and root (the base layer holds files of several users; chroot). */
function imageTools(): Requirement {
  const missing = ['mmdebstrap', 'umoci', 'skopeo', 'unshare', 'chroot'].filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  const problems = [
    ...(missing.length ? [`${missing.join(', ')} not on PATH (scripts/ci-setup.sh installs them)`] : []),
    ...(process.getuid?.() === 0 ? [] : ['not root']),
  ];
  return { what: 'image build tools (mmdebstrap, umoci, skopeo) as root', missing: problems.join('; ') || undefined };
}

interface ImageInfo {
  tag: string;
  digest: string;
  reference: string;
  compressedBytes: number;
  uncompressedBytes: number;
}

/** The OCI runtime config umoci writes when unpacking: what a container runtime would run. */
interface RuntimeConfig {
  process: { args: string[]; env: string[]; cwd: string; user: { uid: number; gid: number } };
}

describeWith(imageTools())('the svc image (npm run image)', () => {
  let dir: string;
  let registry: Registry;
  let image: ImageInfo;
  let rootfs: string;
  let runtime: RuntimeConfig;
  let server: ManagedProcess | undefined;

  /**
   * A shell line that mounts the unpacked root filesystem as a container would see it and runs `argv` in it as the
   * image's user, in its working directory, with its environment plus `env`. For `unshare --mount --pid --fork`.
   */
  function inContainer(argv: string[], env: Record<string, string> = {}): string[] {
    const r = rootfs;
    const { uid, gid } = runtime.process.user;
    const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
    const mounts = [
      `mount --bind ${r} ${r}`,
      `mount -o remount,bind,ro ${r}`,
      `mount -t proc proc ${r}/proc`,
      `mount --rbind /dev ${r}/dev`,
      `mount -t tmpfs tmpfs ${r}/tmp`,
      `mount -t tmpfs -o uid=${uid},gid=${gid},mode=0700 tmpfs ${r}/home/svc`,
      `mount -t tmpfs -o uid=${uid},gid=${gid},mode=0700 tmpfs ${r}/var/lib/svc`,
    ];
    const environment = [...runtime.process.env, ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];
    const inside = `cd ${q(runtime.process.cwd)} && exec ${argv.map(q).join(' ')}`;
    const chroot = `exec chroot --userspec=${uid}:${gid} ${r} /usr/bin/env -i ${environment.map(q).join(' ')} /bin/sh -c ${q(inside)}`;
    return ['--mount', '--pid', '--fork', '--kill-child', 'sh', '-c', [...mounts, chroot].join(' && ')];
  }

  beforeAll(async () => {
    dir = makeTempDir('image');
    registry = await startRegistry();
    const out = join(dir, 'oci');
    await run(
      'bash',
      [join(repoRoot, 'scripts/build-image.sh'), '--out', out, '--push', `${registry.host}/svc`, '--insecure'],
      { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
    );
    image = JSON.parse(readFileSync(join(out, 'image.json'), 'utf8')) as ImageInfo;
    console.log(
      `image ${image.reference}: ${(image.compressedBytes / 2 ** 20).toFixed(1)} MiB compressed, ` +
        `${(image.uncompressedBytes / 2 ** 20).toFixed(1)} MiB unpacked`,
    );
    // Pulled back by digest, as a cluster would with the chart's image.digest.
    const pulled = join(dir, 'pulled');
    await run('skopeo', [
      'copy',
      '--quiet',
      '--src-tls-verify=false',
      `docker://${image.reference}`,
      `oci:${pulled}:svc`,
    ]);
    const bundle = join(dir, 'bundle');
    await run('umoci', ['unpack', '--image', `${pulled}:svc`, bundle]);
    rootfs = join(bundle, 'rootfs');
    runtime = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8')) as RuntimeConfig;
  }, 1_200_000);

  afterAll(async () => {
    await server?.stop();
    await registry?.stop();
    if (dir) removeTempDir(dir);
  });

  it('is pushed under the digest the build computed, and the registry serves that manifest by digest', async () => {
    expect(image.tag).toBe(pkg.version);
    expect(image.reference).toBe(`${registry.host}/svc@${image.digest}`);
    expect(await registry.resolve('svc', pkg.version)).toBe(image.digest);
    const res = await fetch(`${registry.url}/v2/svc/manifests/${image.digest}`, {
      headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
    });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(`sha256:${createHash('sha256').update(body).digest('hex')}`).toBe(image.digest);
    expect(JSON.parse(body.toString()).layers).toHaveLength(2);
  });

  it('runs svc server as the non-root user svc, with svc as its entrypoint', () => {
    expect(runtime.process.args).toEqual(['/usr/local/bin/svc', 'server']);
    expect(runtime.process.user).toMatchObject({ uid: 65532, gid: 65532 });
    expect(runtime.process.env).toContain('NODE_ENV=production');
  });

  it('answers svc --version and carries the pinned git, helm, kustomize and sops', async () => {
    const version = await run('unshare', inContainer(['/usr/local/bin/svc', '--version']));
    expect(version.stdout.trim()).toBe(pkg.version);
    const tools = await run(
      'unshare',
      inContainer([
        'sh',
        '-c',
        'id -u; git --version; helm version --short; kustomize version; node --version; sops --version --disable-version-check',
      ]),
    );
    const [uid, git, helm, kustomize, node, sops] = tools.stdout.trim().split('\n');
    expect(uid).toBe('65532');
    expect(git).toMatch(/^git version 2\./);
    expect(helm).toMatch(new RegExp(`^${pinnedVersion('helm')}\\+`));
    expect(kustomize).toBe(pinnedVersion('kustomize'));
    expect(node).toMatch(/^v24\./);
    expect(sops).toBe(`sops ${pinnedVersion('sops').replace(/^v/, '')}`);
  });

  it('starts from the compile cache built into it: Node’s TypeScript stripper is never loaded', async () => {
    expect(runtime.process.env).toEqual(
      expect.arrayContaining(['SVC_COMPILE_CACHE_SEED=/opt/svc/compile-cache', 'NODE_COMPILE_CACHE_PORTABLE=1']),
    );
    // svc copies the cache from the read-only image into its empty /tmp, then every module it loads comes from there
    // (Node's own account of each module, NODE_DEBUG_NATIVE=COMPILE_CACHE); no module is stripped anew.
    const version = await run(
      'unshare',
      inContainer(['/usr/local/bin/svc', '--version'], { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }),
    );
    expect(version.stdout.trim()).toBe(pkg.version);
    expect(version.stderr).toMatch(
      /retrieving transpile cache for StrippedTypeScript file:\/\/\/opt\/svc\/app\/src\/cli\/main\.ts\.\.\.success/,
    );
    expect(version.stderr).not.toMatch(/no transpile cache for StrippedTypeScript/);
    // The long-lived roles' module graphs, loaded in the same container after that first start: the stripper
    // (amaro, ≈ 25 MiB resident for the process's life) stays out of the process.
    const roles = ['/opt/svc/app/src/operator/index.ts', '/opt/svc/app/src/server.ts'];
    const probe = `for (const m of ${JSON.stringify(roles)}) await import(m); console.log(process.moduleLoadList.filter((m) => m.includes("amaro")).length);`;
    const loaded = await run(
      'unshare',
      inContainer([
        'sh',
        '-c',
        `/usr/local/bin/svc --version > /dev/null && NODE_COMPILE_CACHE=/tmp/node-compile-cache exec node --input-type=module -e '${probe}'`,
      ]),
    );
    expect(loaded.stdout.trim().split('\n').at(-1)).toBe('0');
  });

  it('starts svc server on SQLite inside its read-only root filesystem', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = startProcess(
      'image-server',
      'unshare',
      inContainer(runtime.process.args, {
        SVC_LISTEN: `127.0.0.1:${port}`,
        AUTH_SECRET: randomBytes(24).toString('hex'),
        SVC_CREDENTIALS_KEY: randomBytes(32).toString('hex'),
      }),
      { logDir: dir, leakScanAs: 'svc server log (image)' },
    );
    await waitUntil(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok === true, {
      what: `svc server in the image serving /healthz (log: ${server.logPath})`,
      timeoutMs: 60_000,
    });
    const credentials = { email: 'ada@example.test', password: 'correct horse battery' };
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base },
        body: JSON.stringify(body),
      });
    expect((await post('/api/auth/sign-up/email', { ...credentials, name: 'Ada' })).status).toBe(200);
    const signIn = await post('/api/auth/sign-in/email', credentials);
    expect(signIn.status).toBe(200);
    expect(((await signIn.json()) as { user: { email: string } }).user.email).toBe(credentials.email);
    // The web UI is in the image: a page route answers index.html, whose script is served from /assets/.
    const page = await fetch(`${base}/apps`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${base}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });
});
