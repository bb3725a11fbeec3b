import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeWith, type Requirement } from '../../test/harness/requirements.ts';
import { execFile } from '../git/exec.ts';
import { findTool, type KubeObject, ManifestError, renderGitSource, type ToolPaths } from './index.ts';
import { DEFAULT_RENDER_LIMITS } from './limits.ts';

// Tests may point at specific binaries; src/ code never reads the environment itself.
const tools: ToolPaths = {
  ...(process.env['SVC_KUSTOMIZE_BIN'] ? { kustomize: process.env['SVC_KUSTOMIZE_BIN'] } : {}),
  ...(process.env['SVC_HELM_BIN'] ? { helm: process.env['SVC_HELM_BIN'] } : {}),
};
/** A renderer binary as a test requirement: missing when `<bin> version` does not run. */
async function toolRequirement(tool: 'kustomize' | 'helm'): Promise<Requirement> {
  const bin = findTool(tool, tools);
  const missing = await execFile(bin, ['version']).then(
    () => undefined,
    () => `\`${bin} version\` does not run (\`npm test\` installs it; alone: bash scripts/build-binaries.sh ${tool})`,
  );
  return { what: tool, missing };
}
const kustomize = await toolRequirement('kustomize');
const helm = await toolRequirement('helm');

const dirs: string[] = [];
async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'svc-render-'));
  dirs.push(root);
  for (const [p, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, p)), { recursive: true });
    if (content.startsWith('symlink:')) await symlink(content.slice(8), join(root, p));
    else await writeFile(join(root, p), content);
  }
  return root;
}
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const ids = (objs: KubeObject[]) => objs.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);

describe('raw', () => {
  it('reads yaml, yml and json, multi-document and List kinds, in path order, with defaults', async () => {
    const root = await tree({
      'deploy/a.yaml':
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the substitution syntax under test
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: "${GREETING} ${OTHER}"}\n---\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: extra}\n',
      'deploy/b.yml':
        'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: s, namespace: other}}\n',
      'deploy/sub/c.json': '{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc"}}',
      'deploy/README.md': '# not a manifest',
    });
    const { objects, manifestType } = await renderGitSource({
      root,
      git: { path: 'deploy', substitution: { GREETING: 'hello' } },
      appName: 'app',
      namespace: 'dest',
    });
    expect(manifestType).toBe('Raw');
    expect(ids(objects)).toEqual(['ConfigMap/dest/a', 'Namespace//extra', 'Secret/other/s', 'Service/dest/svc']);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an unknown variable stays as written
    expect((objects[0] as unknown as { data: { x: string } }).data.x).toBe('hello ${OTHER}');
  });

  it('names the file and the reason for a bad manifest', async () => {
    const bad = async (content: string) => {
      const root = await tree({
        'm/ok.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n',
        'm/bad.yaml': content,
      });
      return renderGitSource({ root, git: { path: 'm' }, appName: 'a', namespace: 'n' }).catch((e: unknown) => e);
    };
    const e1 = await bad('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [oops\n');
    expect(e1).toBeInstanceOf(ManifestError);
    expect((e1 as Error).message).toMatch(/^m\/bad\.yaml: document 1: invalid YAML/);
    expect(((await bad('kind: ConfigMap\nmetadata: {name: x}\n')) as Error).message).toBe(
      'm/bad.yaml: document 1: missing apiVersion',
    );
    expect(((await bad('apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n')) as Error).message).toMatch(
      /no metadata.name/,
    );
    expect(((await bad('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n')) as Error).message).toMatch(
      /defined twice/,
    );
  });

  it('refuses a directory without manifests (which would otherwise prune everything)', async () => {
    const root = await tree({ 'empty/README.md': 'nothing here' });
    await expect(renderGitSource({ root, git: { path: 'empty' }, appName: 'a', namespace: 'n' })).rejects.toThrow(
      'empty: no .yaml, .yml or .json manifests found',
    );
  });

  it('path traversal (CVE-2026-47680 class): refuses a path or a symlinked file escaping the repository', async () => {
    const root = await tree({ 'm/link.yaml': 'symlink:/etc/hostname' });
    await expect(renderGitSource({ root, git: { path: 'm' }, appName: 'a', namespace: 'n' })).rejects.toThrow(
      /symlink/,
    );
    await expect(renderGitSource({ root, git: { path: '../' }, appName: 'a', namespace: 'n' })).rejects.toThrow(
      /escapes/,
    );
  });
});

describeWith(kustomize)('kustomize', () => {
  it('detects a kustomization and applies images, namePrefix and components', async () => {
    const root = await tree({
      'base/kustomization.yaml': 'resources: [deploy.yaml]\n',
      'base/deploy.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx:1.0}]}\n',
      'overlay/kustomization.yaml': 'resources: [../base]\n',
      'overlay/extra/kustomization.yaml':
        'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [cm.yaml]\n',
      'overlay/extra/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n',
    });
    const { objects, manifestType } = await renderGitSource({
      root,
      git: {
        path: 'overlay',
        kustomize: { images: ['nginx=registry.test/nginx:2.0'], namePrefix: 'p-', components: ['extra'] },
      },
      appName: 'a',
      namespace: 'dest',
      tools,
    });
    expect(manifestType).toBe('Kustomize');
    expect(ids(objects).sort()).toEqual(['ConfigMap/dest/p-extra', 'Deployment/dest/p-web']);
    const dep = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    expect(dep.spec.template.spec.containers[0]?.image).toBe('registry.test/nginx:2.0');
  });

  it('reports a broken kustomization', async () => {
    const root = await tree({ 'k/kustomization.yaml': 'resources: [missing.yaml]\n' });
    await expect(renderGitSource({ root, git: { path: 'k' }, appName: 'a', namespace: 'n', tools })).rejects.toThrow(
      /^k\/kustomization\.yaml: resources entry "missing\.yaml" does not exist in the repository$/,
    );
  });

  it("names files relative to the repository in kustomize's own errors, never the checkout's absolute path", async () => {
    // Inside the repository (the policy lets it through), but outside the overlay: kustomize's load restrictor
    // refuses it with both absolute paths in its message.
    const root = await tree({
      'base/kustomization.yaml': 'resources: [cm.yaml]\n',
      'base/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n',
      'base/p.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: y}\n',
      'overlay/kustomization.yaml': 'resources: [../base]\npatches: [{path: ../base/p.yaml}]\n',
    });
    const err = await renderGitSource({ root, git: { path: 'overlay' }, appName: 'a', namespace: 'n', tools }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(ManifestError);
    expect(err?.message).toMatch(
      /^overlay: kustomize build failed: .*security; file 'base\/p\.yaml' is not in or below 'overlay'/,
    );
    expect(err?.message).not.toContain(root);
    expect(err?.message).not.toContain(tmpdir());
  });
});

describeWith(helm)('helm', () => {
  it('renders a chart with release name, namespace, values file and inline values', async () => {
    const root = await tree({
      'chart/Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n',
      'chart/values.yaml': 'greeting: hi\nreplicas: 1\n',
      'chart/prod.yaml': 'replicas: 3\n',
      'chart/templates/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n  namespace: {{ .Release.Namespace }}\ndata:\n  greeting: {{ .Values.greeting | quote }}\n  replicas: {{ .Values.replicas | quote }}\n',
    });
    const { objects, manifestType } = await renderGitSource({
      root,
      git: { path: 'chart', helm: { valuesFile: 'prod.yaml', inlineValues: { greeting: 'hello, world' } } },
      appName: 'myapp',
      namespace: 'dest',
      tools,
    });
    expect(manifestType).toBe('Helm');
    expect(ids(objects)).toEqual(['ConfigMap/dest/myapp-cfg']);
    expect((objects[0] as unknown as { data: Record<string, string> }).data).toEqual({
      greeting: 'hello, world',
      replicas: '3',
    });
  });

  it('refuses a values file outside the repository', async () => {
    const root = await tree({ 'chart/Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n' });
    await expect(
      renderGitSource({
        root,
        git: { path: 'chart', helm: { valuesFile: '../../etc/passwd' } },
        appName: 'a',
        namespace: 'n',
        tools,
      }),
    ).rejects.toThrow(/escapes/);
  });
});

const CHART = 'apiVersion: v2\nname: demo\nversion: 0.1.0\n';
const CM = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n`;

describe('hostile sources: YAML bombs and huge files (issue 17)', () => {
  it('YAML bomb (billion laughs, alias expansion): a clear ManifestError, nothing expanded', async () => {
    // Nine levels of nine aliases each: 9^9 (~387 million) strings if the parser expanded them.
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const next = String.fromCharCode(97 + i);
      levels.push(`${next}: &${next} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const root = await tree({
      'deploy/bomb.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n${levels.map((l) => `  ${l}`).join('\n')}\n`,
    });
    const err = await renderGitSource({ root, git: { path: 'deploy' }, appName: 'a', namespace: 'n' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as Error).message).toMatch(/deploy\/bomb\.yaml: document 1: YAML aliases expand too far/);
  });

  it('huge file: manifests over the render size bound are refused before they are read, naming the bound', async () => {
    const root = await tree({
      'deploy/a.yaml': CM('a'),
      'deploy/big.yaml': `${CM('big')}data: {x: "${'x'.repeat(4096)}"}\n`,
    });
    const limits = { ...DEFAULT_RENDER_LIMITS, timeoutMs: 60_000, maxBytes: 2048 };
    const err = await renderGitSource({ root, git: { path: 'deploy' }, appName: 'a', namespace: 'n', limits }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as Error).message).toBe(
      'deploy: manifests exceed 2048 bytes (render limit, SVC_RENDER_MAX_MIB) at deploy/big.yaml',
    );
    // Under the bound the same tree renders.
    const ok = await renderGitSource({
      root,
      git: { path: 'deploy' },
      appName: 'a',
      namespace: 'n',
      limits: { ...limits, maxBytes: 8192 },
    });
    expect(ids(ok.objects)).toEqual(['ConfigMap/n/a', 'ConfigMap/n/big']);
  });
});

describeWith(helm)('hostile sources: helm (issue 17)', () => {
  it('a chart that renders forever: helm is killed at the render timeout and the error names it', async () => {
    // 10^12 iterations: never finishes on any machine; the timeout is what ends it.
    const root = await tree({
      'chart/Chart.yaml': CHART,
      'chart/templates/loop.yaml': `${CM('loop')}data:\n{{- range $i := until 1000000 }}{{ range $j := until 1000000 }}{{ end }}{{ end }}\n`,
    });
    const limits = { ...DEFAULT_RENDER_LIMITS, timeoutMs: 1000, maxBytes: 1024 * 1024 };
    const err = await renderGitSource({
      root,
      git: { path: 'chart' },
      appName: 'a',
      namespace: 'n',
      tools,
      limits,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as Error).message).toBe(
      'chart: helm template failed: timed out after 1000 ms (render limit, SVC_RENDER_TIMEOUT)',
    );
  });

  it('Helm dependencies (GHSA-9v9p-x54c-58gc class): a chart naming remote or file dependencies fetches nothing and reads nothing outside', async () => {
    const hits: string[] = [];
    const listener = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    const port = (listener.address() as AddressInfo).port;
    try {
      const root = await tree({
        'chart/Chart.yaml': `${CHART}dependencies:\n  - name: remote\n    version: 1.0.0\n    repository: http://127.0.0.1:${port}/charts\n  - name: local\n    version: 1.0.0\n    repository: file:///etc\n`,
        'chart/templates/cm.yaml': CM('cm'),
      });
      const err = await renderGitSource({ root, git: { path: 'chart' }, appName: 'a', namespace: 'n', tools }).catch(
        (e: unknown) => e,
      );
      // helm template never downloads or builds dependencies: it refuses the chart until they are vendored.
      expect(err).toBeInstanceOf(ManifestError);
      expect((err as Error).message).toMatch(/missing in charts\/ directory/);
      expect((err as Error).message).not.toContain(root);
      expect(hits).toEqual([]);
    } finally {
      await new Promise((r) => listener.close(r));
    }
  });

  it('huge render: helm output over the size bound is cut off and named, memory stays at the bound', async () => {
    const root = await tree({
      'chart/Chart.yaml': CHART,
      'chart/templates/many.yaml':
        '{{- range $i := until 5000 }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-{{ $i }}}\n{{- end }}\n',
    });
    const limits = { ...DEFAULT_RENDER_LIMITS, timeoutMs: 60_000, maxBytes: 16 * 1024 };
    const err = await renderGitSource({
      root,
      git: { path: 'chart' },
      appName: 'a',
      namespace: 'n',
      tools,
      limits,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as Error).message).toBe(
      'chart: helm template failed: output exceeded 16384 bytes (render limit, SVC_RENDER_MAX_MIB)',
    );
  });

  it('argument injection (GHSA-fw5c-w8rc-j7fx class): a release name or namespace shaped like a Helm flag stays a value', async () => {
    const marker = join(await tree({}), 'pwned');
    const root = await tree({
      'chart/Chart.yaml': CHART,
      'chart/templates/cm.yaml': `${CM('cm')}data: {ns: {{ .Release.Namespace | quote }}}\n`,
    });
    const render = (helmOptions: Record<string, string>) =>
      renderGitSource({ root, git: { path: 'chart', helm: helmOptions }, appName: 'a', namespace: 'n', tools });
    for (const releaseName of [`--post-renderer=/bin/touch ${marker}`, '--kube-context=prod']) {
      const err = await render({ releaseName }).catch((e: unknown) => e);
      expect(err, releaseName).toBeInstanceOf(ManifestError);
      expect((err as Error).message).toMatch(/invalid release name/);
    }
    // `--namespace=<value>`: the value is the namespace Helm renders for, never a second flag.
    const { objects } = await render({ namespace: '--dry-run=server' });
    expect((objects[0] as unknown as { data: Record<string, string> }).data).toEqual({ ns: '--dry-run=server' });
    await expect(stat(marker)).rejects.toThrow(/ENOENT/);
  });
});

describeWith(kustomize)('hostile sources: kustomize (issue 17)', () => {
  it('argument injection: an image or a component shaped like a kustomize flag is never read as one', async () => {
    const root = await tree({
      'k/kustomization.yaml': 'resources: [cm.yaml]\n',
      'k/cm.yaml': CM('cm'),
    });
    const image = await renderGitSource({
      root,
      git: { path: 'k', kustomize: { images: ['--help'] } },
      appName: 'a',
      namespace: 'n',
      tools,
    }).catch((e: unknown) => e);
    expect((image as Error).message).toBe('k: invalid kustomize image "--help"');
    // A component named like a flag is a path after `--`: kustomize looks for the directory and says it is not there.
    const component = await renderGitSource({
      root,
      git: { path: 'k', kustomize: { components: ['--stack-trace'] } },
      appName: 'a',
      namespace: 'n',
      tools,
    }).catch((e: unknown) => e);
    expect(component).toBeInstanceOf(Error);
    expect((component as Error).message).toMatch(/--stack-trace/);
    expect((component as Error).message).not.toMatch(/Usage:|Flags:/);
  });
});
