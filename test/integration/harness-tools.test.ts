import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderToolVersions, resolveRenderTool } from '../../src/render/tools.ts';

const execFileAsync = promisify(execFile);

// The renderers' external binaries are installed by scripts/build-binaries.sh and found by src/render/tools.ts.
describe('harness: renderer tools (kustomize, helm)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harness-tools-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('resolves the pinned kustomize and builds a kustomization', async () => {
    const kustomize = resolveRenderTool('kustomize');
    expect(kustomize).toContain(`kustomize-${renderToolVersions.kustomize}`);
    expect((await execFileAsync(kustomize, ['version'])).stdout.trim()).toBe(renderToolVersions.kustomize);
    const base = join(dir, 'kustomize');
    await mkdir(base);
    await writeFile(
      join(base, 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: "1"\n',
    );
    await writeFile(join(base, 'kustomization.yaml'), 'resources:\n- cm.yaml\nnamePrefix: prod-\n');
    const { stdout } = await execFileAsync(kustomize, ['build', base]);
    expect(stdout).toContain('name: prod-settings');
  });

  it('resolves the pinned helm and templates a chart', async () => {
    const helm = resolveRenderTool('helm');
    expect(helm).toContain(`helm-${renderToolVersions.helm}`);
    const chart = join(dir, 'chart');
    await mkdir(join(chart, 'templates'), { recursive: true });
    await writeFile(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\n');
    await writeFile(join(chart, 'values.yaml'), 'replicas: 1\n');
    await writeFile(
      join(chart, 'templates', 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\ndata:\n  replicas: "{{ .Values.replicas }}"\n',
    );
    const { stdout } = await execFileAsync(helm, ['template', 'web', chart, '--set', 'replicas=3']);
    expect(stdout).toContain('name: web-cfg');
    expect(stdout).toContain('replicas: "3"');
  });
});
