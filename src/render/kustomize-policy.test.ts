import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../core/errors.ts';
import { checkKustomization, isRemoteReference, KustomizationRefused } from './kustomize-policy.ts';
import { ManifestError } from './types.ts';

const dirs: string[] = [];
/** A checkout at `<tmp>/outer/repo` (so `..` from the root lands in a directory that exists). */
async function repo(files: Record<string, string>): Promise<string> {
  const outer = await mkdtemp(join(tmpdir(), 'svc-kpolicy-'));
  dirs.push(outer);
  const root = join(outer, 'repo');
  await mkdir(root);
  await mkdir(join(outer, 'secret'));
  await writeFile(join(outer, 'secret', 'kustomization.yaml'), 'resources: [cm.yaml]\n');
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

const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n';

async function refusal(files: Record<string, string>, dir = 'k'): Promise<KustomizationRefused> {
  const root = await repo(files);
  const err = await checkKustomization(root, join(root, dir)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(KustomizationRefused);
  const refused = err as KustomizationRefused;
  // A stall, and never a path of the server's disk.
  expect(refused).toBeInstanceOf(InputError);
  expect(refused.retry).toBe('stall');
  expect(refused.message).not.toContain(dirname(root));
  return refused;
}

describe('kustomization policy (GHSA-9v9p-x54c-58gc: remote bases, paths outside the checkout)', () => {
  it.each([
    ['an http URL resource (SSRF to loopback)', 'resources: [http://127.0.0.1:9/evil.yaml]', 'resources'],
    ['an https git remote base', 'resources: ["https://github.com/org/repo//deploy?ref=v1"]', 'resources'],
    ['an scp-like git remote', 'bases: ["git@github.com:org/repo.git"]', 'bases'],
    ['a github.com host path', 'resources: [github.com/org/repo/deploy]', 'resources'],
    ['a go-getter git:: reference', 'components: ["git::https://example.com/r.git"]', 'components'],
    ['a ?ref= suffix', 'resources: ["example.com/org/repo?ref=main"]', 'resources'],
    ['a URL patch', 'patchesStrategicMerge: [https://example.com/p.yaml]', 'patchesStrategicMerge'],
    ['a URL transformer config', 'transformers: [http://example.com/t.yaml]', 'transformers'],
  ])('refuses %s', async (_what, kustomization, field) => {
    const err = await refusal({ 'k/kustomization.yaml': `${kustomization}\n` });
    expect(err.file).toBe('k/kustomization.yaml');
    expect(err.message).toMatch(new RegExp(`^k/kustomization\\.yaml: ${field} entry ".+" is a remote reference`));
  });

  it.each([
    ['resources', 'resources: [/etc/ssl]'],
    ['crds', 'crds: [/etc/passwd]'],
    ['patches[].path', 'patches: [{path: /etc/passwd}]'],
    ['configMapGenerator[].files', 'configMapGenerator: [{name: c, files: [key=/etc/passwd]}]'],
    ['secretGenerator[].envs', 'secretGenerator: [{name: s, envs: [/proc/self/environ]}]'],
    ['openapi.path', 'openapi: {path: /etc/openapi.json}'],
  ])('refuses an absolute path in %s', async (field, kustomization) => {
    const err = await refusal({ 'k/kustomization.yaml': `${kustomization}\n` });
    expect(err.message).toContain(`${field} entry "`);
    expect(err.message).toMatch(/is an absolute path/);
  });

  it.each([
    ['resources', 'resources: [../../../secret]'],
    ['bases', 'bases: [../../secret]'],
    ['components', 'components: [../../secret]'],
    ['patchesJson6902[].path', 'patchesJson6902: [{target: {kind: ConfigMap, name: a}, path: ../../secret/cm.yaml}]'],
    ['patchesStrategicMerge', 'patchesStrategicMerge: [../../secret/kustomization.yaml]'],
    ['replacements[].path', 'replacements: [{path: ../../secret/kustomization.yaml}]'],
    ['configurations', 'configurations: [../../secret/kustomization.yaml]'],
    ['generators', 'generators: [../../secret]'],
    ['validators', 'validators: [../../secret/kustomization.yaml]'],
    ['helmGlobals.chartHome', 'helmGlobals: {chartHome: ../../secret}'],
    ['secretGenerator[].env', 'secretGenerator: [{name: s, env: ../../secret/kustomization.yaml}]'],
  ])('refuses a %s entry resolving outside the checkout', async (field, kustomization) => {
    const err = await refusal({ 'k/kustomization.yaml': `${kustomization}\n` });
    expect(err.message).toContain(`k/kustomization.yaml: ${field} entry "`);
    expect(err.message).toMatch(/resolves outside the repository$/);
  });

  it('refuses an entry that escapes through a symlink, naming the link, not its target', async () => {
    const root = await repo({});
    const err = await refusal({
      'k/kustomization.yaml': 'resources: [base]\n',
      'k/base': `symlink:${join(dirname(root), 'secret')}`,
    });
    expect(err.message).toBe('k/kustomization.yaml: resources entry "base" escapes the repository through a symlink');
  });

  it('refuses helmCharts and a HelmChartInflationGenerator config (inline or in a file): they fetch charts', async () => {
    expect(
      (await refusal({ 'k/kustomization.yaml': 'helmCharts: [{name: redis, repo: https://charts.example.com}]\n' }))
        .message,
    ).toMatch(/^k\/kustomization\.yaml: helmCharts entry "redis" is refused: kustomize would fetch the chart/);
    const inline =
      'generators:\n- |\n  apiVersion: builtin\n  kind: HelmChartInflationGenerator\n  metadata: {name: x}\n';
    expect((await refusal({ 'k/kustomization.yaml': inline })).message).toMatch(/HelmChartInflationGenerator/);
    const file = await refusal({
      'k/kustomization.yaml': 'generators: [gen.yaml]\n',
      'k/gen.yaml':
        'apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata: {name: x}\nrepo: https://c.example\n',
    });
    expect(file.message).toMatch(
      /^k\/kustomization\.yaml: generators entry "gen\.yaml" is a HelmChartInflationGenerator/,
    );
  });

  it('follows the graph: a refusal deep in a base names that base’s kustomization file', async () => {
    const err = await refusal(
      {
        'overlays/prod/kustomization.yaml': 'resources: [../../base]\n',
        'base/kustomization.yml': 'resources: [cm.yaml, ../components/extra]\n',
        'base/cm.yaml': CM,
        'components/extra/Kustomization': 'kind: Component\nresources: [http://127.0.0.1:9/x.yaml]\n',
      },
      'overlays/prod',
    );
    expect(err.file).toBe('components/extra/Kustomization');
  });

  it('a missing local file is a broken manifest (retried), not a refusal', async () => {
    const root = await repo({ 'k/kustomization.yaml': 'resources: [missing.yaml]\n' });
    const err = await checkKustomization(root, join(root, 'k')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as ManifestError).retry).toBe('wait');
    expect((err as ManifestError).message).toBe(
      'k/kustomization.yaml: resources entry "missing.yaml" does not exist in the repository',
    );
  });

  it('allows legitimate layouts: overlays on ../base inside the repository, components, generators, inline patches', async () => {
    const root = await repo({
      'base/kustomization.yaml': 'resources: [cm.yaml]\nconfigurations: [conf.yaml]\n',
      'base/cm.yaml': CM,
      'base/conf.yaml': 'nameReference: []\n',
      'components/extra/kustomization.yaml': 'kind: Component\nresources: [extra.yaml]\n',
      'components/extra/extra.yaml': CM.replace('name: a', 'name: extra'),
      'overlays/prod/kustomization.yaml': [
        'resources: [../../base, ./more.yaml]',
        'components: [../../components/extra]',
        'patches: [{path: patch.yaml}, {patch: "- op: add\\n  path: /data\\n  value: {}", target: {kind: ConfigMap}}]',
        'patchesStrategicMerge:',
        '- |',
        '  apiVersion: v1',
        '  kind: ConfigMap',
        '  metadata: {name: a}',
        'configMapGenerator: [{name: g, files: [app.conf=files/app.conf], envs: [files/.env]}]',
        'openapi: {path: schema.json}',
        'transformers: [labels.yaml]',
        'replacements: [{path: repl.yaml}, {source: {kind: ConfigMap, name: a}, targets: []}]',
        'images: [{name: nginx, newTag: "2"}]',
        '',
      ].join('\n'),
      'overlays/prod/more.yaml': CM.replace('name: a', 'name: more'),
      'overlays/prod/patch.yaml': CM,
      'overlays/prod/files/app.conf': 'x=1\n',
      'overlays/prod/files/.env': 'A=1\n',
      'overlays/prod/schema.json': '{}',
      'overlays/prod/labels.yaml': 'apiVersion: builtin\nkind: LabelTransformer\nmetadata: {name: l}\nlabels: {a: b}\n',
      'overlays/prod/repl.yaml': 'source: {kind: ConfigMap, name: a}\ntargets: []\n',
    });
    const graph = await checkKustomization(root, join(root, 'overlays/prod'));
    const rel = (files: string[]) => files.map((f) => relative(root, f)).sort();
    expect(rel(graph.kustomizations)).toEqual([
      'base/kustomization.yaml',
      'components/extra/kustomization.yaml',
      'overlays/prod/kustomization.yaml',
    ]);
    expect(rel(graph.files)).toEqual(
      [
        'base/cm.yaml',
        'base/conf.yaml',
        'components/extra/extra.yaml',
        'overlays/prod/files/.env',
        'overlays/prod/files/app.conf',
        'overlays/prod/labels.yaml',
        'overlays/prod/more.yaml',
        'overlays/prod/patch.yaml',
        'overlays/prod/repl.yaml',
        'overlays/prod/schema.json',
      ].sort(),
    );
  });

  it('tells remote references from local paths', () => {
    for (const local of ['base', '../base', './cm.yaml', 'deploy/app.yaml', 'a.b/c.yaml']) {
      expect(isRemoteReference(local), local).toBe(false);
    }
    for (const remote of [
      'ssh://git@h/r.git',
      'file:///etc',
      'gh:org/repo',
      'dev.azure.com/o/p/_git/r',
      'h.example/r.git',
    ]) {
      expect(isRemoteReference(remote), remote).toBe(true);
    }
  });
});
